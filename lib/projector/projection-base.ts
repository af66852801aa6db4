import type { AnyEventStream, InlinePlan, InlineProjection, ProjectedRow, StreamEvent } from '../store';
import type { KeyOfModel, ReadModel, Stored } from '../read-model';
import { backfillRows, type BackfillOptions, type BackfillProgress } from './backfill';
import type { Key } from './engine';
import { deliver } from './delivery';
import { listParked, replayParked, retryParkedRows } from './parking';
import { resolveRuntime, type CommonProjectionOptions, type ProjectionRuntime, type RowKindParts } from './runtime';
import { planInline } from './inline';
import type { ApplyResult, Entry, EventRef, MultiSourceRowOutcome, ParkedRow, RowOutcome } from '../outcome';
import { waitForEvents, type WaitForOptions } from './read-your-writes';
import type { AnyProjection, CallOptions, EntryOptions, RowOfModel } from './types';

/**
 * What both kinds of projection do the same way, over the row engine: they differ in how an event finds
 * its row and where the row keeps its checkpoints (the kind's `RowKindParts`), and in the types they
 * answer. `Event` is what the projection folds, `Handled` what a call reports per row; `Replayed`, what a parked row's replay does.
 */
export abstract class ProjectionBase<M extends ReadModel, State, Event, Handled extends RowOutcome | MultiSourceRowOutcome, Replayed>
  implements AnyProjection, InlineProjection
{
  readonly name: string;
  readonly readModel: M;
  /** @internal */
  protected readonly runtime: ProjectionRuntime<State>;

  protected constructor(options: CommonProjectionOptions<M, State, Event>, parts: RowKindParts<State>) {
    this.runtime = resolveRuntime<State, Event>(options, parts);
    this.name = this.runtime.name;
    this.readModel = options.readModel;
  }

  /** The streams whose events the projection folds. */
  abstract readonly streams: ReadonlyArray<AnyEventStream>;

  /** @internal plans this projection's rows for an append's transaction (the append's `inline` option). */
  planInline(events: ReadonlyArray<StreamEvent>, previousVersion: number, signal?: AbortSignal): Promise<InlinePlan> {
    return planInline(this.runtime, events, previousVersion, signal);
  }

  /** @internal applies events at given positions (records' positions, for processBatch). */
  applyEntries(entries: ReadonlyArray<Entry<StreamEvent>>, options: EntryOptions = {}): Promise<ApplyResult<StreamEvent, Key, Handled>> {
    return deliver(this.runtime, entries, { signal: options.signal, logger: options.logger }) as Promise<ApplyResult<StreamEvent, Key, Handled>>;
  }

  /** Applies decoded events at their positions in the list: what each kind's `applyBatch` does. */
  protected applyListed(events: ReadonlyArray<unknown>, options: CallOptions): Promise<ApplyResult<StreamEvent, Key, Handled>> {
    return this.applyEntries(
      (events as ReadonlyArray<StreamEvent>).map((event, position) => ({ event, position })),
      options,
    );
  }

  /** The outcome of applying one event: `undefined` for an event of no row; rejects with the row's error. */
  protected async applyOne(event: unknown, options: CallOptions): Promise<Exclude<Handled, { readonly status: 'failed' }> | undefined> {
    const { outcomes } = await this.applyListed([event], options);
    const outcome = outcomes[0];
    if (outcome === undefined) return undefined;
    if (outcome.status === 'failed') throw outcome.error;
    return outcome as Exclude<Handled, { readonly status: 'failed' }>;
  }

  /**
   * Brings every row up to date over the whole history, while deliveries go on: a parallel Scan lists the
   * stream instances (one scan per events table of its streams), and each instance's events are applied
   * through the same conditional writes as a delivery, so both can run at once and no event is applied
   * twice. Writes no outbox messages. Progress is saved per scan segment in the read model's table; after a
   * crash, call it again to resume. Resolves the final progress.
   *
   * @example
   * ```ts
   * await summaries.backfill({ segments: 8, concurrency: 32, throttle: { requestsPerSecond: 500 },
   *   onProgress: (p) => console.log(`${p.instancesDone}/${p.instancesEstimate ?? '?'}`) })
   * ```
   */
  backfill(options: BackfillOptions = {}): Promise<BackfillProgress> {
    return backfillRows(this.runtime, options);
  }

  /** The rows parked by the `poison` policy, with why (a Scan of the model's table). */
  parkedRows(options: { signal?: AbortSignal | undefined } = {}): AsyncIterable<ParkedRow<Key>> {
    return listParked(this.runtime, options.signal);
  }

  /** Read-your-writes after an append: waits for every row `events` address (see `waitFor`). */
  waitForEvents(events: ReadonlyArray<StreamEvent>, options: WaitForOptions = {}): Promise<ReadonlyArray<ProjectedRow<Stored<RowOfModel<M>>>>> {
    return waitForEvents(this.runtime, events, options);
  }

  /**
   * Replays a parked row (or every parked row) from its checkpoints, once its `evolve` is fixed: every event
   * that reached it is applied exactly once, in order, and the row is unparked. A row that fails again
   * stays parked, one more attempt counted, on the event that failed (what came before it is written).
   * Resolves an outcome per row replayed; a row's error (a throttled read, say) is its failed outcome, so
   * the rows replayed before it are still reported. Rejects only for a key that is none (`ValidationError`)
   * or when listing the parked rows fails, before any is replayed. Once `options.signal` aborted no request
   * starts: the call rejects with its reason (aborted before the call, it sends none).
   */
  async retryParked(key?: KeyOfModel<M>, options: CallOptions = {}): Promise<ReadonlyArray<Replayed>> {
    return (await retryParkedRows(this.runtime, key, options.signal)) as unknown as ReadonlyArray<Replayed>;
  }

  /**
   * Skips a parked row's failing event on purpose (or `options.event`, which must be one the row holds),
   * which the row records, then replays the rest as `retryParked` does; the skip is saved even when a later
   * event fails. Resolves `undefined` for a row that is not parked; rejects with a `ValidationError` for a
   * key that is none or an event the row does not hold. Once `options.signal` aborted no request starts: the
   * call rejects with its reason (aborted before the call, it sends none and skips nothing).
   */
  async skipParked(key: KeyOfModel<M>, options: { event?: EventRef | undefined } & CallOptions = {}): Promise<Replayed | undefined> {
    return (await replayParked(this.runtime, key, options.event ?? 'failing', options.signal)) as Replayed | undefined;
  }
}

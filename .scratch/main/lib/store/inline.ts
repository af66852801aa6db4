import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { StreamEvent } from './types';

/** A conditional Put of a transaction, as the document client takes it. */
export type TransactPut = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Put']>;

/**
 * What an append needs of a projection to write its rows in the append's own transaction. `Projection` and
 * `MultiSourceProjection` implement it; the store knows nothing else of projections.
 */
export interface InlineProjection {
  readonly name: string;
  /** The streams the projection folds: the appending stream must be one of them. */
  readonly streams: ReadonlyArray<{ readonly name: string }>;
  /**
   * @internal Reads the rows `events` address (strongly consistent) and folds them, for events about to be
   * appended right after `previousVersion`. Resolves the Puts to add to the append's transaction, each
   * conditioned as the projector's own write would be, or why the rows are left to the projector. The
   * append's `signal` reaches the reads; aborted, the plan rejects with its reason.
   */
  planInline(events: ReadonlyArray<StreamEvent>, previousVersion: number, signal?: AbortSignal): Promise<InlinePlan>;
}

/** A projection's part of an append's transaction, or why it has none. */
export type InlinePlan =
  | {
      readonly kind: 'write';
      /** The rows' Puts and their outbox messages; none when the events change no row (ignored or skipped). */
      readonly puts: ReadonlyArray<TransactPut>;
      /** The events the rows fold (not those they skip or reject), in version order. */
      readonly applied: ReadonlyArray<StreamEvent>;
    }
  | { readonly kind: 'deferred'; readonly reason: InlineDeferral; readonly error?: unknown };

/**
 * Why an append left a projection to the asynchronous path (the projector fed by the events table's stream):
 * - `behind`: a row's checkpoint is not at the version before the append (the projector has events to
 *   apply first, or skipped ones to decide again);
 * - `parked`: a row is parked by the poison policy;
 * - `failed`: `key`, `evolve`, `toItem` or the row's model refused an event, or the rows could not be read;
 *   the projector meets the same error and handles it as it always does (retry or park);
 * - `limits`: the rows and their outbox messages would take the transaction past DynamoDB's 100 items
 *   or 4 MB;
 * - `conflict`: a row changed between its read and the transaction (the projector wrote it), so the
 *   append went again without it;
 * - `duplicate`: an earlier append with the idempotency key answered: this call wrote nothing.
 */
export type InlineDeferral = 'behind' | 'parked' | 'failed' | 'limits' | 'conflict' | 'duplicate';

/** A projection an append left to the asynchronous path, and why. */
export interface InlineDeferred {
  readonly projection: string;
  readonly reason: InlineDeferral;
  /** The error behind a `failed` deferral. */
  readonly error?: unknown;
}

/** A projection an append applied inline, and the events its rows folded. */
export interface InlineApplied<Event = StreamEvent> {
  readonly projection: string;
  /**
   * The appended events the projection's rows folded, in version order: those its `key` ignores, that
   * `evolve` skips or `terminal` rejects are not here. They are in no delivery's `applied` (the projector
   * finds them `alreadyApplied`): side effects that hang on `applied` take them from here.
   */
  readonly events: ReadonlyArray<Event>;
}

/** What an append did with its inline projections. */
export interface InlineResult<Event = StreamEvent> {
  /**
   * The projections whose rows hold the appended events when the append resolves: written in the append's
   * transaction, or with nothing to write for them (events the projection ignores or skips).
   */
  readonly applied: ReadonlyArray<InlineApplied<Event>>;
  /** The projections left to the projector, with why. */
  readonly deferred: ReadonlyArray<InlineDeferred>;
}

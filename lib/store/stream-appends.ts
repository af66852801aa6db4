import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../errors';
import { getItem, newWriteId, withSignal } from '../dynamo';
import {
  planCommits,
  sendAppend,
  sentinelKey,
  appendWithRetries,
  type AppendMode,
  type AttemptOutcome,
  type LostAppend,
  fitsCommitPut,
  sendCommitPut,
  SentinelAttributes,
  assertSameRequest,
  requestHash,
  type SentinelTtl,
  sendInlineAppend,
  sealPersonalData,
  type KnownCommitEnds,
} from './append';
import {
  fromCommitItem,
  writtenEvents,
  commitEndOf,
  loadKeysOf,
  validateMetadata,
  validateNewEvent,
  type EventCodec,
  type ValidEvent,
} from './codec';
import { EventStreamDefaults } from './defaults';
import { resolveCallRetry, validateAppendOptions, type AppendOptions } from './event-stream-options';
import { readCommitHolding } from './read';

import type { InlineResult } from './inline';
import type { ProjectedRows } from './read-your-writes';
import type { ReadRange, StreamEvent } from './types';
import { Attr, SpanEvents, countAppend, countConflict, currentTraceContext, spanEvent, type TraceContext } from '../telemetry';

/** What appending needs of its stream. */
export interface AppendingStream {
  readonly name: string;
  readonly table: string;
  readonly streamIdFields: ReadonlyArray<string>;
  readonly codec: EventCodec;
  readonly documents: DynamoDBDocumentClient;
  readonly sentinelTtl: SentinelTtl | undefined;
  /** Whether each event is a commit of its own (see `EventStreamOptions.itemPerEvent`). */
  readonly itemPerEvent: boolean;
  /** Whether appends store the trace context of their span (see `EventStreamOptions.traceContext`). */
  readonly storesTraceContext: boolean;
  /** The versions seen to end a commit (see `KnownCommitEnds`): an append at one needs no proof read. */
  readonly commitEnds: KnownCommitEnds;
  version(streamId: string, options: { signal?: AbortSignal | undefined }): Promise<number>;
  read(streamId: string, range: ReadRange): Promise<StreamEvent[]>;
}

/**
 * The appends of one `EventStream`: validation, the request each try is (a conditional PutItem of the
 * commit or a transaction, see `fitsCommitPut`), retries (`appendWithRetries`) and idempotent repeats.
 */
export class StreamAppends {
  /** The request hash of each append in progress, by its validated events (the same options go with them). */
  private readonly requestHashes = new WeakMap<ReadonlyArray<ValidEvent>, string>();

  constructor(private readonly stream: AppendingStream) {}

  /** Appends validated events in `mode` (see `AppendMode`): the result, or the race it lost when not at the head. */
  async append(
    streamId: string,
    valid: ReadonlyArray<ValidEvent>,
    options: AppendOptions,
    mode: AppendMode,
  ): Promise<AppendResult<StreamEvent> | LostAppend> {
    // Subjects' keys are read once, before the first try; each try seals for the versions it writes at.
    const sealedAt = await sealPersonalData(this.stream.codec, this.stream.streamIdFields, streamId, valid, options.signal);
    // The append's span is active here: its context goes on every commit the append writes.
    const trace = this.stream.storesTraceContext ? currentTraceContext() : undefined;
    // One id for every try: whichever lands, a retry of its request knows the commit as this append's.
    const appendId = newWriteId();
    const outcome = await appendWithRetries({
      streamName: this.stream.name,
      streamId,
      mode,
      expectedVersion: options.expectedVersion,
      retry: resolveCallRetry(options.retry, EventStreamDefaults.appendRetry, 'an append'),
      signal: options.signal,
      readHead: () => this.stream.version(streamId, { signal: options.signal }),
      endsCommit: (version) => this.endsCommit(streamId, version, options.signal),
      attempt: async (expectedVersion) => {
        const outcome = await this.attempt(streamId, expectedVersion, valid, sealedAt(expectedVersion + 1), options, { trace, appendId });
        if (outcome.kind === 'conflict') {
          countConflict(this.stream.name);
          spanEvent(SpanEvents.conflict, { [Attr.expectedVersion]: expectedVersion });
        }
        return outcome;
      },
    });
    if ('version' in outcome) this.stream.commitEnds.remember(streamId, outcome.version);
    return outcome;
  }

  /**
   * Whether a commit of the stream ends at `version`, the proof a caller's `expectedVersion` needs (an
   * append there must neither leave a gap nor overlap a commit). A version this stream saw end a commit
   * needs no read (`KnownCommitEnds`). Else an eventually consistent read that finds the commit holding
   * `version` decides at half the units: no replica holds an item that was not committed, and commits are
   * never changed or deleted. One that finds none (or only an earlier commit) may be behind, so a strongly
   * consistent read decides.
   */
  private async endsCommit(streamId: string, version: number, signal: AbortSignal | undefined): Promise<boolean> {
    if (this.stream.commitEnds.holds(streamId, version)) return true;
    const documents = withSignal(this.stream.documents, signal);
    const read = (consistent: boolean) => readCommitHolding(documents, this.stream.table, this.stream.codec, streamId, version, consistent);
    const eventuallyConsistent = false;
    const seen = await read(eventuallyConsistent);
    const found = seen !== undefined && seen.end >= version ? seen : await read(true);
    const ends = found !== undefined && found.end === version;
    if (ends) this.stream.commitEnds.remember(streamId, version);
    return ends;
  }

  /** The events of a commit that won a race, decoded; `undefined` when it can't be (the command then loads the stream again). */
  async decodeWinner(item: Record<string, unknown>, signal?: AbortSignal): Promise<StreamEvent[] | undefined> {
    try {
      await loadKeysOf(this.stream.codec.personal, [item], signal);
      return fromCommitItem(this.stream.codec, item);
    } catch {
      return undefined;
    }
  }

  /** One try at `expectedVersion` of `valid`, sealed as `events`: a conditional PutItem where it fits, else one transaction (with the inline rows asked for). */
  private async attempt(
    streamId: string,
    expectedVersion: number,
    valid: ReadonlyArray<ValidEvent>,
    events: ReadonlyArray<ValidEvent>,
    options: AppendOptions,
    { trace, appendId }: { readonly trace: TraceContext | undefined; readonly appendId: string },
  ): Promise<AttemptOutcome<AppendResult<StreamEvent>>> {
    const plan = {
      table: this.stream.table,
      streamId,
      expectedVersion,
      events,
      appendedAt: Date.now(),
      itemPerEvent: this.stream.itemPerEvent,
      appendId,
      ...(trace === undefined ? {} : { trace }),
      ...(options.idempotencyKey === undefined ? {} : this.idempotency(options.idempotencyKey, valid, events, options)),
    };
    const items = planCommits(this.stream.codec, plan);
    const documents = withSignal(this.stream.documents, options.signal);
    const written = this.written(items, events);
    const inlineCount = options.inline?.length ?? 0;
    const version = expectedVersion + events.length;
    if (fitsCommitPut({ commitCount: items.length, idempotencyKey: options.idempotencyKey, inlineCount })) {
      const outcome = await sendCommitPut(documents, this.stream.table, items[0] as Record<string, unknown>, appendId);
      if (outcome.kind !== 'appended') return this.lost(streamId, outcome.winner);
      countAppend(this.stream.name, events.length);
      return { kind: 'appended', result: { version, events: written } };
    }
    const { outcome, inline } =
      inlineCount === 0
        ? { outcome: await sendAppend(documents, this.stream.codec, plan, items), inline: undefined }
        : await sendInlineAppend(documents, this.stream.codec, plan, items, written, options.inline ?? [], options.signal);
    // The inline folds saw the very events returned here.
    const withInline = inline === undefined ? {} : { inline };
    switch (outcome.kind) {
      case 'appended':
        countAppend(this.stream.name, events.length);
        return { kind: 'appended', result: { version, events: written, ...withInline } };
      case 'duplicate': {
        const first = await this.firstResult(streamId, options.idempotencyKey as string, plan.requestHash as string, options.signal);
        return first === 'contended' ? { kind: 'contended' } : { kind: 'appended', result: { ...first, ...withInline } };
      }
      case 'conflict':
        // A Put's condition failed, so version expectedVersion + 1 is taken; by which commit, a cancelled
        // transaction does not say.
        return this.lost(streamId, undefined);
      default:
        // Only inline rows can be lost alone, and sendInlineAppend goes again without them.
        return { kind: 'contended' };
    }
  }

  /** The events the commits `items` hold, as a read would return them. */
  private written(items: ReadonlyArray<Record<string, unknown>>, events: ReadonlyArray<ValidEvent>): StreamEvent[] {
    const written: StreamEvent[] = [];
    for (const item of items) written.push(...writtenEvents(this.stream.codec, item, events.slice(written.length)));
    return written;
  }

  /** A try whose first version was taken, by `winner` when DynamoDB returned it: its end is a version known to end a commit. */
  private lost(streamId: string, winner: Record<string, unknown> | undefined): AttemptOutcome<never> {
    let winnerEnd: number | undefined;
    try {
      winnerEnd = winner === undefined ? undefined : commitEndOf(this.stream.codec, winner);
    } catch {
      winnerEnd = undefined;
    }
    if (winnerEnd !== undefined) this.stream.commitEnds.remember(streamId, winnerEnd);
    return { kind: 'conflict', winner, winnerEnd };
  }

  private idempotency(idempotencyKey: string, valid: ReadonlyArray<ValidEvent>, events: ReadonlyArray<ValidEvent>, options: AppendOptions) {
    // One append validates its events into one array and retries with it: hash it once, not on every try
    // (sealed for another version, its personal fields hash the same: keyed hashes of their values).
    let hash = this.requestHashes.get(valid);
    if (hash === undefined) {
      hash = requestHash({ events, expectedVersion: options.expectedVersion, request: options.request });
      this.requestHashes.set(valid, hash);
    }
    return {
      idempotencyKey,
      requestHash: hash,
      ...(this.stream.sentinelTtl === undefined ? {} : { sentinelTtl: this.stream.sentinelTtl }),
    };
  }

  /** The first append's result, once the sentinel shows this key was used, for this same request. */
  private async firstResult(
    streamId: string,
    idempotencyKey: string,
    hash: string,
    signal: AbortSignal | undefined,
  ): Promise<AppendResult<StreamEvent> | 'contended'> {
    const sentinel = await getItem(
      withSignal(this.stream.documents, signal),
      this.stream.table,
      sentinelKey(this.stream.codec, streamId, idempotencyKey),
    );
    // Expired and deleted since the transaction saw it: the key is free again, so try again.
    if (sentinel === undefined) return 'contended';
    assertSameRequest(sentinel, hash, { streamName: this.stream.name, streamId, idempotencyKey });
    const fromVersion = Number(sentinel[SentinelAttributes.fromVersion]);
    const toVersion = Number(sentinel[SentinelAttributes.toVersion]);
    return { version: toVersion, events: await this.stream.read(streamId, { fromVersion, toVersion, signal }) };
  }

  /** The events of an append, validated with its options' metadata merged in; an invalid one is a `ValidationError`. */
  validate(events: ReadonlyArray<unknown>, options: AppendOptions): ValidEvent[] {
    if (!Array.isArray(events) || events.length === 0) {
      throw new ValidationError(`An append to ${this.stream.name} needs at least one event.`, [{ path: [], message: 'no events' }]);
    }
    validateAppendOptions(this.stream.name, options);
    const { metadata } = options;
    return events.map((event, index) => {
      const valid = validateNewEvent(this.stream.codec, event, index);
      const merged = metadata === undefined ? valid : { ...valid, metadata: { ...metadata, ...valid.metadata } };
      if (merged.metadata !== undefined) validateMetadata(this.stream.codec, index, merged.type, merged.metadata);
      return merged;
    });
  }
}

/** What an append wrote. */
export interface AppendResult<Event> {
  /** The stream's version after the append: the last event's version. */
  readonly version: number;
  readonly events: ReadonlyArray<Event>;
  /** With the `inline` option: which projections the append's transaction applied, and which it left to the projector. */
  readonly inline?: InlineResult<Event> | undefined;
  /** With `waitFor`: the rows each projection answered, by projection name. */
  readonly projected?: ProjectedRows | undefined;
}

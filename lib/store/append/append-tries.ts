import { sealPersonalData } from './seal-personal';
import { appendWithRetries, type AppendMode, type AttemptOutcome, type LostAppend } from './append-retries';
import { fitsCommitPut, planCommits } from './plan-commits';
import { assertSameRequest, requestHash, sentinelKey, sentinelPut } from './idempotency';
import { sendInlineAppend } from './inline-append';
import { resolveCallRetry, type AppendOptions } from './append-options';
import type { AppendResult } from './append-result';
import { writtenEvents, type ValidEvent } from '../codec';
import type { TransactPut } from '../inline';
import { EventStreamDefaults } from '../defaults';
import { SentinelAttributes } from '../layout';
import { readEvents } from '../read';
import type { StreamDefinition } from '../stream-definition';
import type { StreamEvent } from '../types';
import { Attr, SpanEvents, countAppend, countConflict, currentTraceContext, spanEvent, type TraceContext } from '../../telemetry';

/** The request hash of each append in progress, by its validated events (the same options go with them). */
const requestHashes = new WeakMap<ReadonlyArray<ValidEvent>, string>();

/**
 * Appends validated events in `mode` (see `AppendMode`): the result, or the race it lost when not at the
 * head. Each try is a conditional PutItem of the commit or a transaction (see `fitsCommitPut`), retried by
 * `appendWithRetries`; an idempotent repeat answers the first append's result.
 */
export async function appendValid(
  stream: StreamDefinition,
  streamId: string,
  valid: ReadonlyArray<ValidEvent>,
  options: AppendOptions,
  mode: AppendMode,
): Promise<AppendResult<StreamEvent> | LostAppend> {
  const { commits } = stream;
  const { signal } = options;
  // Subjects' keys are read once, before the first try; each try seals for the versions it writes at.
  const sealedAt = await sealPersonalData(stream.codec, stream.streamIdFields, streamId, valid, signal);
  // The append's span is active here: its context goes on every commit the append writes.
  const trace = stream.storesTraceContext ? currentTraceContext() : undefined;
  // One id for every try: whichever lands, a retry of its request knows the commit as this append's.
  const appendId = commits.newAppendId();
  return appendWithRetries({
    streamName: stream.name,
    streamId,
    mode,
    expectedVersion: options.expectedVersion,
    retry: resolveCallRetry(options.retry, EventStreamDefaults.appendRetry, 'an append'),
    signal,
    readHead: () => commits.head(streamId, signal),
    endsCommit: (version) => commits.endsCommit(streamId, version, signal),
    attempt: async (expectedVersion) => {
      const outcome = await attempt(stream, streamId, expectedVersion, valid, sealedAt(expectedVersion + 1), options, { trace, appendId });
      if (outcome.kind === 'conflict') {
        countConflict(stream.name);
        spanEvent(SpanEvents.conflict, { [Attr.expectedVersion]: expectedVersion });
      }
      return outcome;
    },
  });
}

/** One try at `expectedVersion` of `valid`, sealed as `events`: a conditional PutItem where it fits, else one transaction (with the inline rows asked for). */
async function attempt(
  stream: StreamDefinition,
  streamId: string,
  expectedVersion: number,
  valid: ReadonlyArray<ValidEvent>,
  events: ReadonlyArray<ValidEvent>,
  options: AppendOptions,
  { trace, appendId }: { readonly trace: TraceContext | undefined; readonly appendId: string },
): Promise<AttemptOutcome<AppendResult<StreamEvent>>> {
  const { commits, codec } = stream;
  const plan = {
    table: stream.table,
    streamId,
    expectedVersion,
    events,
    appendedAt: Date.now(),
    itemPerEvent: stream.itemPerEvent,
    appendId,
    ...(trace === undefined ? {} : { trace }),
    ...(options.idempotencyKey === undefined ? {} : idempotency(stream, options.idempotencyKey, valid, events, options)),
  };
  const items = planCommits(codec, plan);
  const written = writtenOf(stream, items, events);
  const inlineCount = options.inline?.length ?? 0;
  const version = expectedVersion + events.length;
  if (fitsCommitPut({ commitCount: items.length, idempotencyKey: options.idempotencyKey, inlineCount })) {
    const outcome = await commits.putCommit(streamId, items[0] as Record<string, unknown>, appendId, options.signal);
    if (outcome.kind !== 'appended') return { kind: 'conflict', winner: outcome.winner, winnerEnd: outcome.winnerEnd };
    countAppend(stream.name, events.length);
    return { kind: 'appended', result: { version, events: written } };
  }
  const sentinel = plan.idempotencyKey === undefined ? undefined : sentinelPut(codec, plan);
  const send = (extras: ReadonlyArray<TransactPut>) => commits.transact(streamId, { commits: items, sentinel, extras }, appendId, options.signal);
  const { outcome, inline } =
    inlineCount === 0
      ? { outcome: await send([]), inline: undefined }
      : await sendInlineAppend(
          send,
          { commits: items, sentinel: sentinel !== undefined, expectedVersion },
          written,
          options.inline ?? [],
          options.signal,
        );
  // The inline folds saw the very events returned here.
  const withInline = inline === undefined ? {} : { inline };
  switch (outcome.kind) {
    case 'appended':
      countAppend(stream.name, events.length);
      return { kind: 'appended', result: { version, events: written, ...withInline } };
    case 'duplicate': {
      const first = await firstResult(stream, streamId, options.idempotencyKey as string, plan.requestHash as string, options.signal);
      return first === 'contended' ? { kind: 'contended' } : { kind: 'appended', result: { ...first, ...withInline } };
    }
    case 'conflict':
      // A Put's condition failed, so version expectedVersion + 1 is taken; by which commit, a cancelled
      // transaction does not say.
      return { kind: 'conflict', winner: undefined, winnerEnd: undefined };
    default:
      // Only inline rows can be lost alone, and sendInlineAppend goes again without them.
      return { kind: 'contended' };
  }
}

/** The events the commits `items` hold, as a read would return them. */
export function writtenOf(stream: StreamDefinition, items: ReadonlyArray<Record<string, unknown>>, events: ReadonlyArray<ValidEvent>): StreamEvent[] {
  const written: StreamEvent[] = [];
  for (const item of items) written.push(...writtenEvents(stream.codec, item, events.slice(written.length)));
  return written;
}

function idempotency(
  stream: StreamDefinition,
  idempotencyKey: string,
  valid: ReadonlyArray<ValidEvent>,
  events: ReadonlyArray<ValidEvent>,
  options: AppendOptions,
) {
  // One append validates its events into one array and retries with it: hash it once, not on every try
  // (sealed for another version, its personal fields hash the same: keyed hashes of their values).
  let hash = requestHashes.get(valid);
  if (hash === undefined) {
    hash = requestHash({ events, expectedVersion: options.expectedVersion, request: options.request });
    requestHashes.set(valid, hash);
  }
  return { idempotencyKey, requestHash: hash, ...(stream.sentinelTtl === undefined ? {} : { sentinelTtl: stream.sentinelTtl }) };
}

/** The first append's result, once the sentinel shows this key was used, for this same request. */
async function firstResult(
  stream: StreamDefinition,
  streamId: string,
  idempotencyKey: string,
  hash: string,
  signal: AbortSignal | undefined,
): Promise<AppendResult<StreamEvent> | 'contended'> {
  const sentinel = await stream.commits.sentinel(sentinelKey(stream.codec, streamId, idempotencyKey), streamId, signal);
  // Expired and deleted since the transaction saw it: the key is free again, so try again.
  if (sentinel === undefined) return 'contended';
  assertSameRequest(sentinel, hash, { streamName: stream.name, streamId, idempotencyKey });
  const fromVersion = Number(sentinel[SentinelAttributes.fromVersion]);
  const toVersion = Number(sentinel[SentinelAttributes.toVersion]);
  const events: StreamEvent[] = [];
  for await (const event of readEvents(stream, streamId, { fromVersion, toVersion, signal })) events.push(event);
  return { version: toVersion, events };
}

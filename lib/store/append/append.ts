import { ConcurrencyError, ValidationError } from '../../errors';
import { Attr, inSpan, streamSpan } from '../../telemetry';
import { validateMetadata, validateNewEvent, type NewEventOf, type ValidEvent } from '../codec';
import { MAX_VERSION } from '../layout';
import { waitForProjections } from '../read-your-writes';
import { formatStreamId, type StreamDefinition } from '../stream-definition';
import type { EventSchemas, StreamEvent } from '../types';
import { validateAppendOptions, type AppendOptions } from './append-options';
import type { AppendResult, LostRace } from './append-result';
import { appendValid } from './append-tries';

/**
 * The append action (`EventStream.append`): events as one commit once the version before them is known to
 * end a commit, at the caller's `expectedVersion` (a stream at another is a `ConcurrencyError`, nothing
 * written) or at the head, retried on conflict; with `waitFor`, once the projections reflect them.
 */
export async function append(
  stream: StreamDefinition,
  id: unknown,
  events: ReadonlyArray<NewEventOf<EventSchemas>>,
  options: AppendOptions = {},
): Promise<AppendResult<StreamEvent>> {
  const { waitFor, ...write } = options;
  if (waitFor !== undefined) {
    const result = await append(stream, id, events, write);
    return { ...result, projected: await waitForProjections(result.events, waitFor, options.signal) };
  }
  const counts = () => ({ [Attr.eventCount]: Array.isArray(events) ? events.length : undefined, [Attr.expectedVersion]: options.expectedVersion });
  return inSpan(
    () => streamSpan('append', stream, counts()),
    async (span) => {
      // Named before anything can fail, so that a failed append's span says which stream it failed on.
      const streamId = formatStreamId(stream, id);
      span.set({ [Attr.streamId]: streamId });
      const result = await appendOnce(stream, streamId, events, options);
      span.set({ [Attr.version]: result.version });
      return result;
    },
  );
}

async function appendOnce(
  stream: StreamDefinition,
  streamId: string,
  events: ReadonlyArray<unknown>,
  options: AppendOptions,
): Promise<AppendResult<StreamEvent>> {
  const valid = validateAppend(stream, events, options);
  const { signal } = options;
  // A version past the last a stream can hold (an ETag of 11 digits, say) is stale, not invalid: no
  // stream is there, so this is the conflict a transaction would find. Only a stream that really is at
  // `expectedVersion` is refused for running out of versions (by planCommits).
  if (options.expectedVersion !== undefined && options.expectedVersion + valid.length > MAX_VERSION) {
    const actual = await stream.commits.head(streamId, signal);
    if (actual !== options.expectedVersion) throw new ConcurrencyError(stream.name, streamId, options.expectedVersion, actual);
  }
  const outcome = await appendValid(stream, streamId, valid, options, options.expectedVersion === undefined ? 'head' : 'expected');
  if ('version' in outcome) return outcome;
  throw new ConcurrencyError(stream.name, streamId, options.expectedVersion ?? 0, await stream.commits.head(streamId, signal));
}

/**
 * `execute`'s append, at the version its load read: a lost race is answered, not thrown, with the commit
 * that won (its events) when DynamoDB returned it, so the command can decide again without reading.
 */
export async function appendAfterLoad(
  stream: StreamDefinition,
  streamId: string,
  events: ReadonlyArray<unknown>,
  options: AppendOptions & { readonly expectedVersion: number },
): Promise<AppendResult<StreamEvent> | LostRace<StreamEvent>> {
  const attributes = () => ({ [Attr.streamId]: streamId, [Attr.eventCount]: events.length, [Attr.expectedVersion]: options.expectedVersion });
  return inSpan(
    () => streamSpan('append', stream, attributes()),
    async (span) => {
      const appended = await appendLoaded(stream, streamId, events, options);
      // The try that won says the version it appended at; a lost one, none (the command's retry event names the winner's).
      if ('version' in appended) span.set({ [Attr.version]: appended.version });
      return appended;
    },
  );
}

async function appendLoaded(
  stream: StreamDefinition,
  streamId: string,
  events: ReadonlyArray<unknown>,
  options: AppendOptions & { readonly expectedVersion: number },
): Promise<AppendResult<StreamEvent> | LostRace<StreamEvent>> {
  const outcome = await appendValid(stream, streamId, validateAppend(stream, events, options), options, 'loaded');
  if ('version' in outcome) return outcome;
  const winner = outcome.winner === undefined ? undefined : await stream.commits.decodeWinner(outcome.winner, options.signal);
  return { lostRace: true, actualVersion: winner?.at(-1)?.version ?? options.expectedVersion + 1, ...(winner === undefined ? {} : { winner }) };
}

/** The events of an append, validated with its options' metadata merged in; an invalid one is a `ValidationError`. */
export function validateAppend(stream: StreamDefinition, events: ReadonlyArray<unknown>, options: AppendOptions): ValidEvent[] {
  if (!Array.isArray(events) || events.length === 0) {
    throw new ValidationError(`An append to ${stream.name} needs at least one event.`, [{ path: [], message: 'no events' }]);
  }
  validateAppendOptions(stream.name, options);
  const { metadata } = options;
  return events.map((event, index) => {
    const valid = validateNewEvent(stream.codec, event, index);
    const merged = metadata === undefined ? valid : { ...valid, metadata: { ...metadata, ...valid.metadata } };
    if (merged.metadata !== undefined) validateMetadata(stream.codec, index, merged.type, merged.metadata);
    return merged;
  });
}

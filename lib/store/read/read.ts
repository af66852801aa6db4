import { ValidationError } from '../../errors';
import { merge, requireInteger } from '../../util';
import { EventStreamDefaults } from '../defaults';
import { MAX_VERSION } from '../layout';
import { formatStreamId, type StreamDefinition } from '../stream-definition';
import type { ReadRange, StreamEvent } from '../types';

/** The read actions: a stream instance's head, its events, and the instances of a stream. */

/** The stream instance's current version (0 when it has no events), strongly consistent. */
export async function streamVersion(stream: StreamDefinition, id: unknown, options: { signal?: AbortSignal | undefined } = {}): Promise<number> {
  return stream.commits.head(formatStreamId(stream, id), options.signal);
}

/** Events of a stream instance in version order, paged, strongly consistent: from `fromVersion` (default 1) to `toVersion` (default the head). */
export function iterate(stream: StreamDefinition, id: unknown, range: ReadRange = {}): AsyncGenerator<StreamEvent> {
  return readEvents(stream, formatStreamId(stream, id), range);
}

/** The events of `range` of the instance `streamId` (formatted), as `iterate` reads them; a bound that is no version is a `ValidationError`. */
export async function* readEvents(stream: StreamDefinition, streamId: string, range: ReadRange): AsyncGenerator<StreamEvent> {
  const fromVersion = range.fromVersion ?? 1;
  const toVersion = Math.min(range.toVersion ?? MAX_VERSION, MAX_VERSION);
  for (const [name, value] of [
    ['fromVersion', fromVersion],
    ['toVersion', toVersion],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new ValidationError(`Expected \`${name}\` to be an integer ≥ 0, got ${String(value)}.`, [
        { path: [name], message: 'not an integer ≥ 0' },
      ]);
    }
  }
  const reading = { pageSize: EventStreamDefaults.readPageSize, consistent: true, afterCommitEnd: false, signal: range.signal };
  yield* stream.commits.events(streamId, { fromVersion, toVersion }, reading);
}

/** All events of a range (see {@link iterate}) in an array. */
export async function read(stream: StreamDefinition, id: unknown, range: ReadRange = {}): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of iterate(stream, id, range)) events.push(event);
  return events;
}

/**
 * The id of every instance of the stream, in no particular order, listed by a parallel Scan of the events
 * table (`segments` at once), a page at a time.
 */
export function instances(
  stream: StreamDefinition,
  options: { segments?: number | undefined; signal?: AbortSignal | undefined } = {},
): AsyncIterable<string> {
  const segments = requireInteger('segments', options.segments ?? EventStreamDefaults.instanceSegments, 1, 1_000_000, `${stream.name}.instances`);
  const pagesOf = (segment: number) => stream.commits.instancePages({ streamNames: [stream.name], segment, segments, signal: options.signal });
  return (async function* () {
    for await (const page of merge(Array.from({ length: segments }, (_unused, segment) => pagesOf(segment)))) {
      for (const instance of page.instances) yield instance.streamId;
    }
  })();
}

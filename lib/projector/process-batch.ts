import { ValidationError } from '../errors';
import { decoder, type AnyEventStream, type StreamEvent } from '../store';
import { batchResponse, type PartialBatchResponse } from './batch-response';
import type { RowOutcome } from './outcome';
import type { AnyProjection } from './projection';
import { imageReader, type DecodeFailure, type RecordReading, type StreamRecordLike } from './records';
import type { Entry } from './row-plan';
import type { EventsOfStream } from './types';


/** Options of {@link processBatch}. */
export interface ProcessBatchOptions<P extends Record<string, AnyProjection>, St extends Record<string, AnyEventStream>, R = StreamRecordLike>
  extends RecordReading<R> {
  /** Projections by name; each record is routed to every projection of its stream. */
  readonly projections: P;
  /** Streams whose events come back in `unrouted`, to act on without decoding twice. */
  readonly streams?: St;
  /** `'report'` fails undecodable records (holding their shard); `'skip'` acknowledges them. Both list them in `decodeFailures`. @defaultValue 'report' */
  readonly onDecodeFailure?: 'report' | 'skip';
}

/** An event of one of the `streams`, with its record's position. */
export type Unrouted<St extends Record<string, AnyEventStream>> = {
  [K in keyof St & string]: { readonly stream: K; readonly event: EventsOfStream<St[K]>; readonly position: number };
}[keyof St & string];

/** What {@link processBatch} did with a batch. */
export interface ProcessResult<P extends Record<string, AnyProjection>, St extends Record<string, AnyEventStream> = Record<string, AnyEventStream>, R = StreamRecordLike> {
  /** Each projection's row outcomes, under its name; positions index the records. */
  readonly outcomes: { readonly [K in keyof P]: ReadonlyArray<RowOutcome<P[K] extends { readonly stream: infer S } ? EventsOfStream<S> : P[K] extends { readonly $event: infer E } ? E : StreamEvent>> };
  /** Per projection, positions of its stream's events that address no row. */
  readonly ignored: { readonly [K in keyof P]: ReadonlyArray<number> };
  readonly unrouted: ReadonlyArray<Unrouted<St>>;
  readonly decodeFailures: ReadonlyArray<DecodeFailure<R>>;
  /** Positions the response reports. Add to it (a failed side effect) and call `batchResponse(records, failedRecords, options)`. */
  readonly failedRecords: number[];
  readonly response: PartialBatchResponse;
}

/**
 * Decodes each record once, routes it to every projection of its stream, and answers with one partial
 * batch response across them all: the earliest record of every failed row, plus every record that failed
 * to decode (unless `onDecodeFailure: 'skip'`). Records of other streams and items are skipped.
 *
 * @example
 * ```ts
 * const result = await processBatch(event.Records, { projections: { summaries, zones }, source: 'lambda' })
 * return result.response
 * ```
 */
export async function processBatch<P extends Record<string, AnyProjection>, St extends Record<string, AnyEventStream> = Record<string, never>, R = StreamRecordLike>(
  records: ReadonlyArray<R>,
  options: ProcessBatchOptions<P, St, R>,
): Promise<ProcessResult<P, St, R>> {
  if (!Array.isArray(records)) throw new ValidationError('processBatch expects an array of stream records (event.Records).');
  const projections = Object.entries(options.projections) as Array<[string, AnyProjection]>;
  const extra = Object.entries(options.streams ?? {});
  // Keys name where each stream came from, so a marker shared by two streams is reported by both names.
  const decode = decoder(
    Object.fromEntries([
      ...projections.flatMap(([name, projection]) => projection.streams.map((stream) => [`projections.${name}.${stream.name}`, stream] as const)),
      ...extra.map(([name, stream]) => [`streams.${name}`, stream] as const),
    ]),
  );

  const readImage = imageReader(options);
  const entries: Entry<StreamEvent>[] = [];
  const decodeFailures: DecodeFailure<R>[] = [];
  records.forEach((record, position) => {
    try {
      const image = readImage(record);
      const decoded = image === undefined ? undefined : decode(image);
      if (decoded !== undefined) entries.push({ event: decoded.event, position });
    } catch (error) {
      decodeFailures.push({ position, record, error });
    }
  });

  const results = await Promise.all(projections.map(([, projection]) => {
      const names = new Set(projection.streams.map((stream) => stream.name));
      return projection.applyEntries(entries.filter((entry) => names.has(entry.event.streamName)));
    }));
  const failed = new Set<number>();
  for (const result of results) {
    for (const outcome of result.outcomes) if (outcome.status === 'failed' && outcome.positions.length > 0) failed.add(Math.min(...outcome.positions));
  }
  if (options.onDecodeFailure !== 'skip') for (const failure of decodeFailures) failed.add(failure.position);
  const failedRecords = [...failed].sort((a, b) => a - b);
  const names = new Map(extra.map(([key, stream]) => [stream.name, key]));
  return {
    outcomes: Object.fromEntries(projections.map(([name], index) => [name, results[index]?.outcomes ?? []])) as ProcessResult<P, St, R>['outcomes'],
    ignored: Object.fromEntries(projections.map(([name], index) => [name, results[index]?.ignored ?? []])) as ProcessResult<P, St, R>['ignored'],
    unrouted: entries.flatMap(({ event, position }) => {
      const stream = names.get(event.streamName);
      return stream === undefined ? [] : [{ stream, event, position } as Unrouted<St>];
    }),
    decodeFailures,
    failedRecords,
    response: batchResponse(records, failedRecords, options),
  };
}

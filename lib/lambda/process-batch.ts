import { ValidationError, isTransient } from '../errors';
import { decodeImages, decoder, type AnyEventStream, type EventsOfStream, type StreamEvent, type StreamImage } from '../store';
import { batchResponse, type PartialBatchResponse } from './batch-response';
import { log, resolveLogger, type Logger } from '../util';
import {
  eventRef,
  namedProjections,
  type AnyProjection,
  type ApplyResult,
  type Entry,
  type MultiSourceRowOutcome,
  type ProjectionSet,
  type ProjectionsByName,
  type RowOutcome,
} from '../outcome';
import { imageReader, type DecodeFailure, type RecordReading, type StreamRecordLike } from './records';
import { Attr, inProcessSpan, type AttributeValue, type TracedSpan } from '../telemetry';
import { batchSpan, measuresBatch, reportBatch, transportOf } from './batch-telemetry';
import { batchMetrics, type BatchMetrics } from './batch-metrics';

/** Options of {@link processBatch}. */
export interface ProcessBatchOptions<
  P extends ProjectionSet,
  St extends Record<string, AnyEventStream>,
  R = StreamRecordLike,
> extends RecordReading<R> {
  /**
   * The projections, a list (`[summaries, zones]`), each reported under its `name`; each record is routed to
   * every projection of its stream. A record whose keys are not the projections' names is deprecated.
   */
  readonly projections: P;
  /** Streams whose events come back in `unrouted`, to act on without decoding twice. */
  readonly streams?: St | undefined;
  /**
   * `'report'` fails undecodable records (holding their shard); `'skip'` acknowledges them, but those whose
   * failure is transient (an event newer code wrote), which it fails too. Both list them in `decodeFailures`.
   * @defaultValue 'report'
   */
  readonly onDecodeFailure?: 'report' | 'skip' | undefined;
  /**
   * Receives what went wrong in the batch, a line per row or record: rows that failed (warn), records that
   * failed to decode (warn), and the projections' parking: attempts counted (warn), rows parked (error).
   * `false` logs nothing. @defaultValue one JSON line per
   * entry on the console (`console.warn` / `console.error`), what Lambda and CloudWatch expect
   */
  readonly logger?: Logger | false | undefined;
  /** Called with the batch's figures once it is applied (see {@link BatchMetrics}); a throw is logged, never fails the batch. */
  readonly onMetrics?: ((metrics: BatchMetrics) => void) | undefined;
  /**
   * Cuts the batch short: no further row starts and the requests in flight are aborted; the rows not done
   * fail (with the signal's reason), so their records are reported for a redelivery.
   */
  readonly signal?: AbortSignal | undefined;
}

/** An event of one of the `streams`, with its record's position (a record holds an append's events, so several may share one). */
export type Unrouted<St extends Record<string, AnyEventStream>> = {
  [K in keyof St & string]: { readonly stream: K; readonly event: EventsOfStream<St[K]>; readonly position: number };
}[keyof St & string];

/** The row outcomes a projection reports: multi-source rows name their checkpoint per source instance. */
export type OutcomeOf<P> = P extends { readonly $event: infer E }
  ? MultiSourceRowOutcome<E>
  : P extends { readonly stream: infer S }
    ? RowOutcome<EventsOfStream<S>>
    : RowOutcome | MultiSourceRowOutcome;

/** The events a projection folds: of its stream, or of its sources (multi-source). */
export type EventOfProjection<P> = P extends { readonly $event: infer E }
  ? E
  : P extends { readonly stream: infer S }
    ? EventsOfStream<S>
    : StreamEvent;

/** What {@link processBatch} did with a batch. */
export interface ProcessResult<
  P extends ProjectionSet,
  St extends Record<string, AnyEventStream> = Record<string, AnyEventStream>,
  R = StreamRecordLike,
> {
  /** Each projection's row outcomes, under its name; positions index the records. */
  readonly outcomes: { readonly [K in keyof ProjectionsByName<P>]: ReadonlyArray<OutcomeOf<ProjectionsByName<P>[K]>> };
  /** Per projection, positions of its stream's events that address no row (a record's once per such event). */
  readonly ignored: { readonly [K in keyof ProjectionsByName<P>]: ReadonlyArray<number> };
  /** Per projection, its stream's events that address no row: a record's others may address rows. */
  readonly ignoredEvents: { readonly [K in keyof ProjectionsByName<P>]: ReadonlyArray<EventOfProjection<ProjectionsByName<P>[K]>> };
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
 * const result = await processBatch(event.Records, { projections: [summaries, zones], source: 'lambda' })
 * return result.response
 * ```
 */
export async function processBatch<P extends ProjectionSet, St extends Record<string, AnyEventStream> = Record<string, never>, R = StreamRecordLike>(
  records: ReadonlyArray<R>,
  options: ProcessBatchOptions<P, St, R>,
): Promise<ProcessResult<P, St, R>> {
  if (!Array.isArray(records)) throw new ValidationError('processBatch expects an array of stream records (event.Records).');
  // A transport (a Lambda handler, the change feed) started the batch's span already; processBatch called alone starts it.
  const transport = transportOf(options);
  const span = batchSpan(transport, options.projections, options.streams, records.length);
  return inProcessSpan(span, (traced, started) => processRecords(records, options, traced, started.attributes?.[Attr.transport] ?? transport));
}

async function processRecords<P extends ProjectionSet, St extends Record<string, AnyEventStream>, R>(
  records: ReadonlyArray<R>,
  options: ProcessBatchOptions<P, St, R>,
  span: TracedSpan,
  transport: AttributeValue,
): Promise<ProcessResult<P, St, R>> {
  const started = performance.now();
  const projections = namedProjections<AnyProjection>(options.projections, 'processBatch', options.logger);
  const extra = Object.entries(options.streams ?? {});
  const { entries, decodeFailures } = await decodeRecords(records, options, projections, extra);
  // One link per append whose events the batch holds: one batch serves many traces.
  if (span.recording) span.link(entries.map((entry) => entry.event));

  const logger = resolveLogger(options.logger);
  const results = await Promise.all(
    projections.map(([, projection]) => {
      const names = new Set(projection.streams.map((stream) => stream.name));
      return projection.applyEntries(
        entries.filter((entry) => names.has(entry.event.streamName)),
        { signal: options.signal, logger },
      );
    }),
  );
  const failed = new Set<number>();
  // A record's first event stands for it in the log.
  const eventAt = new Map<number, StreamEvent>();
  for (const entry of entries) if (!eventAt.has(entry.position)) eventAt.set(entry.position, entry.event);
  results.forEach((result, index) => {
    const projection = projections[index]?.[0];
    for (const outcome of result.outcomes) {
      if (outcome.status === 'failed' && outcome.positions.length > 0) failed.add(Math.min(...outcome.positions));
      reportRow(logger, projection, outcome, eventAt);
    }
  });
  for (const failure of decodeFailures) {
    log(logger, 'warn', { position: failure.position, err: failure.error }, 'record failed to decode');
  }
  // A transient failure (an event newer code wrote, say) is not a broken record: skipping it would lose it for
  // good, so it fails (and is retried) until it passes (that code runs here).
  for (const failure of decodeFailures) {
    if (options.onDecodeFailure !== 'skip' || isTransient(failure.error)) failed.add(failure.position);
  }
  const named = projections.map(
    ([name], index) => [name, results[index] as ApplyResult<StreamEvent, unknown, RowOutcome | MultiSourceRowOutcome>] as const,
  );
  const metrics = measuresBatch(options.onMetrics) ? batchMetrics(records, named, decodeFailures.length, performance.now() - started) : undefined;
  if (options.onMetrics !== undefined && metrics !== undefined) {
    try {
      options.onMetrics(metrics);
    } catch (error) {
      log(logger, 'warn', { err: error }, 'onMetrics failed');
    }
  }
  const decodeErrors = decodeFailures.map((failure) => failure.error);
  const figures = metrics === undefined ? undefined : { ...metrics, failedRecords: failed.size };
  const projectionNames = new Map(projections.map(([key, projection]) => [key, projection.name]));
  reportBatch(span, String(transport), { results: named, names: projectionNames, failedRecords: failed.size, decodeErrors, figures });
  const failedRecords = [...failed].sort((a, b) => a - b);
  const names = new Map(extra.map(([key, stream]) => [stream.name, key]));
  return {
    outcomes: Object.fromEntries(projections.map(([name], index) => [name, results[index]?.outcomes ?? []])) as ProcessResult<P, St, R>['outcomes'],
    ignored: Object.fromEntries(projections.map(([name], index) => [name, results[index]?.ignored ?? []])) as ProcessResult<P, St, R>['ignored'],
    ignoredEvents: Object.fromEntries(projections.map(([name], index) => [name, results[index]?.ignoredEvents ?? []])) as ProcessResult<
      P,
      St,
      R
    >['ignoredEvents'],
    unrouted: entries.flatMap(({ event, position }) => {
      const stream = names.get(event.streamName);
      return stream === undefined ? [] : [{ stream, event, position } as Unrouted<St>];
    }),
    decodeFailures,
    failedRecords,
    response: batchResponse(records, failedRecords, options),
  };
}

/**
 * Decodes a batch's records into entries (a record is one commit: each of its events an entry at the
 * record's position), and the records that failed to decode with why.
 */
async function decodeRecords<P extends ProjectionSet, St extends Record<string, AnyEventStream>, R>(
  records: ReadonlyArray<R>,
  options: ProcessBatchOptions<P, St, R>,
  projections: ReadonlyArray<readonly [string, AnyProjection]>,
  extra: ReadonlyArray<readonly [string, AnyEventStream]>,
): Promise<{ entries: Entry<StreamEvent>[]; decodeFailures: DecodeFailure<R>[] }> {
  // Keys name where each stream came from, so a marker shared by two streams is reported by both names.
  const decode = decoder(
    Object.fromEntries([
      ...projections.flatMap(([name, projection]) => projection.streams.map((stream) => [`projections.${name}.${stream.name}`, stream] as const)),
      ...extra.map(([name, stream]) => [`streams.${name}`, stream] as const),
    ]),
  );

  const readImage = imageReader(options);
  const images = records.map((record): { readonly image: StreamImage | undefined } | { readonly error: unknown } => {
    try {
      return { image: readImage(record) };
    } catch (error) {
      return { error };
    }
  });
  // The keys of every subject whose personal data the batch holds, in one read, before any record decodes.
  const decoded = await decodeImages(
    decode,
    images.map((read) => ('image' in read ? read.image : undefined)),
    { signal: options.signal },
  );
  const entries: Entry<StreamEvent>[] = [];
  const decodeFailures: DecodeFailure<R>[] = [];
  images.forEach((read, position) => {
    const outcome = 'error' in read ? read : (decoded[position] as (typeof decoded)[number]);
    if ('error' in outcome) {
      decodeFailures.push({ position, record: records[position] as R, error: outcome.error });
      return;
    }
    // A record is one commit: each of its events is an entry at the record's position.
    for (const event of outcome.decoded?.events ?? []) entries.push({ event, position });
  });
  return { entries, decodeFailures };
}

/**
 * Logs a row that failed, with the earliest of its events in the batch. A parked row is not logged here:
 * the row engine logged it to this same logger, with the attempts that parked it.
 */
function reportRow(
  logger: Logger | undefined,
  projection: string | undefined,
  outcome: RowOutcome | MultiSourceRowOutcome,
  eventAt: ReadonlyMap<number, StreamEvent>,
): void {
  if (outcome.status !== 'failed') return;
  const event = eventAt.get(Math.min(...outcome.positions));
  const details = { projection, key: outcome.key, event: event === undefined ? undefined : eventRef(event), err: outcome.error };
  log(logger, 'warn', details, 'row failed; its records are reported for a redelivery');
}

/**
 * The hook `lambdaHandler` and `runChangeFeed` call after a batch is applied and before it is answered or
 * acknowledged: act on `applied` or `unrouted` events there. Push positions to `result.failedRecords` to
 * fail more records (a failed side effect); a throw fails the whole batch, which is then delivered again
 * (the projections' checkpoints skip what was applied). `input` is what the batch came in: the Lambda
 * event, or the change feed's batch.
 */
export type OnBatch<P extends ProjectionSet, St extends Record<string, AnyEventStream>, R, Input> = (
  result: ProcessResult<P, St, R>,
  input: Input,
) => unknown;

/**
 * Runs `onBatch`, then answers with the response of `result`, built again when the hook failed more
 * records: the one place where what a hook adds reaches the response, for the handlers, the change feed
 * and a handler of one's own that takes an `onBatch` hook.
 *
 * @example
 * ```ts
 * const result = await processBatch(event.Records, { projections: [summaries], source: 'lambda' })
 * return answerAfter(event.Records, result, { source: 'lambda' }, onBatch, event)
 * ```
 */
export async function answerAfter<P extends ProjectionSet, St extends Record<string, AnyEventStream>, R, Input>(
  records: ReadonlyArray<R>,
  result: ProcessResult<P, St, R>,
  reading: RecordReading<R>,
  onBatch: OnBatch<P, St, R, Input> | undefined,
  input: Input,
): Promise<PartialBatchResponse> {
  if (onBatch === undefined) return result.response;
  const reported = result.failedRecords.length;
  await onBatch(result, input);
  return result.failedRecords.length === reported ? result.response : batchResponse(records, result.failedRecords, reading);
}

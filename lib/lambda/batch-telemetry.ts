import type { AnyEventStream, StreamEvent } from '../store';
import { projectionsOf, type ApplyResult, type MultiSourceRowOutcome, type ProjectionSet, type RowOutcome } from '../outcome';
import {
  Attr,
  SpanEvents,
  errorAttributes,
  keyText,
  metricsActive,
  processSpan,
  recordBatch,
  recordLag,
  type SpanSpec,
  type TracedSpan,
  type Transport,
} from '../telemetry';
import type { RecordReading } from './records';

type Results = ReadonlyArray<readonly [string, ApplyResult<StreamEvent, unknown, RowOutcome | MultiSourceRowOutcome>]>;

/** The transport a `processBatch` call's options name: its `source`, or `records` for a record shape of one's own. */
export function transportOf(reading: RecordReading<never>): Transport {
  if (reading.image !== undefined) return 'records';
  return reading.source ?? 'lambda';
}

/** The process span of a batch of `records` for these projections (and extra streams): its destination is their events tables. */
export function batchSpan(
  transport: Transport,
  projections: ProjectionSet,
  streams: Readonly<Record<string, AnyEventStream>> | undefined,
  records: number,
  more?: Parameters<typeof processSpan>[3],
): SpanSpec {
  const tables = [...projectionsOf(projections).flatMap((projection) => projection.streams), ...Object.values(streams ?? {})].map(
    (stream) => stream.table,
  );
  return processSpan(transport, tables, records, more);
}

/** What a batch ended in, for its span and the meter. */
export interface BatchEnd {
  /** Each projection's outcomes, under its key in `processBatch`'s `projections`. */
  readonly results: Results;
  /** The name of the projection under each key (`Projection.name`), which spans and metrics carry. */
  readonly names: ReadonlyMap<string, string>;
  readonly failedRecords: number;
  readonly decodeErrors: ReadonlyArray<unknown>;
  /** The figures `onMetrics` gets, when they were computed. */
  readonly figures: Parameters<typeof recordBatch>[0] | undefined;
}

/**
 * Tells a batch's span what became of its rows (an event per failed row, parking telling its own; the span failed, with
 * the first error, when records are reported for a redelivery), and the meter its figures and the lag of
 * the events applied.
 */
export function reportBatch(span: TracedSpan, transport: string, end: BatchEnd): void {
  if (span.recording) {
    let first: unknown;
    for (const [key, result] of end.results) {
      const projection = end.names.get(key) ?? key;
      for (const outcome of result.outcomes) {
        const row = {
          [Attr.projection]: projection,
          [Attr.rowKey]: outcome.key === undefined ? undefined : keyText(outcome.key),
        };
        if (outcome.status !== 'failed') continue;
        first ??= outcome.error;
        span.event(SpanEvents.rowFailed, { ...row, ...errorAttributes(outcome.error) });
      }
    }
    first ??= end.decodeErrors[0];
    span.set({ [Attr.recordsFailed]: end.failedRecords });
    if (end.failedRecords > 0 && first !== undefined) span.fail(first);
  }
  if (end.figures === undefined) return;
  const shares = Object.entries(end.figures.projections).map(([key, share]) => [end.names.get(key) ?? key, share] as const);
  recordBatch({ ...end.figures, projections: Object.fromEntries(shares) }, transport);
  const now = Date.now();
  for (const [key, result] of end.results) for (const outcome of result.outcomes) recordLag(end.names.get(key) ?? key, outcome.applied, now);
}

/** Whether a batch computes its figures: for `onMetrics`, or for a registered meter. */
export function measuresBatch(onMetrics: unknown): boolean {
  return onMetrics !== undefined || metricsActive();
}

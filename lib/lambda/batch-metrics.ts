import type { ApplyResult, MultiSourceRowOutcome, RowOutcome } from '../outcome';
import type { StreamEvent } from '../store';
import { recordTime } from './records';

/** One projection's share of a batch's figures. */
export interface ProjectionMetrics {
  /** Events folded into rows (each in exactly one call's `applied`). */
  readonly eventsApplied: number;
  /** The batch's events the rows already had (redeliveries). */
  readonly alreadyApplied: number;
  /** Row writes that went through. */
  readonly rowsWritten: number;
  /** Strongly consistent reads of a stream to fill a gap. */
  readonly gapReads: number;
  /** Row writes that lost to a concurrent writer and were tried again. */
  readonly lostRaces: number;
  /** Rows that failed (their records are reported for a redelivery). */
  readonly rowsFailed: number;
  /** Rows parked, or set aside because they were parked (see the `poison` option). */
  readonly rowsParked: number;
}

/**
 * A batch's figures, a small fixed set for dashboards and alarms: the projections' summed and one by
 * one, plus the records that failed to decode, how long the batch took and how old its oldest record is.
 */
export interface BatchMetrics extends ProjectionMetrics {
  readonly records: number;
  readonly decodeFailures: number;
  readonly durationMs: number;
  /** Now minus the oldest record's `ApproximateCreationDateTime` (minute-precise on DynamoDB Local), or its Kinesis arrival time; `undefined` without one. */
  readonly oldestRecordAgeMs: number | undefined;
  readonly projections: Readonly<Record<string, ProjectionMetrics>>;
}

/** A batch's figures from the projections' results (see {@link BatchMetrics}). */
export function batchMetrics(
  records: ReadonlyArray<unknown>,
  results: ReadonlyArray<readonly [string, ApplyResult<StreamEvent, unknown, RowOutcome | MultiSourceRowOutcome>]>,
  decodeFailures: number,
  durationMs: number,
): BatchMetrics {
  const projections: Record<string, ProjectionMetrics> = {};
  for (const [name, result] of results) {
    const sum = (count: (outcome: RowOutcome | MultiSourceRowOutcome) => number) =>
      result.outcomes.reduce((total, outcome) => total + count(outcome), 0);
    projections[name] = {
      eventsApplied: sum((outcome) => outcome.applied.length),
      alreadyApplied: sum((outcome) => (outcome.status === 'applied' ? outcome.alreadyApplied.length : 0)),
      rowsWritten: result.stats.rowsWritten,
      gapReads: result.stats.gapReads,
      lostRaces: result.stats.lostRaces,
      rowsFailed: sum((outcome) => (outcome.status === 'failed' ? 1 : 0)),
      rowsParked: sum((outcome) => (outcome.status === 'parked' ? 1 : 0)),
    };
  }
  const total = (field: keyof ProjectionMetrics) => Object.values(projections).reduce((sum, metrics) => sum + metrics[field], 0);
  return {
    records: records.length,
    eventsApplied: total('eventsApplied'),
    alreadyApplied: total('alreadyApplied'),
    rowsWritten: total('rowsWritten'),
    gapReads: total('gapReads'),
    lostRaces: total('lostRaces'),
    rowsFailed: total('rowsFailed'),
    rowsParked: total('rowsParked'),
    decodeFailures,
    durationMs,
    oldestRecordAgeMs: oldestRecordAge(records),
    projections,
  };
}

/** Now minus the oldest time a record reached its stream (see {@link recordTime}). */
function oldestRecordAge(records: ReadonlyArray<unknown>): number | undefined {
  let oldest: number | undefined;
  for (const record of records) {
    const ms = recordTime(record);
    if (ms !== undefined && (oldest === undefined || ms < oldest)) oldest = ms;
  }
  return oldest === undefined ? undefined : Math.max(0, Date.now() - oldest);
}

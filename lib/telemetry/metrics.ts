import { Attr } from './names';
import { instruments } from './port';

/** Whether a meter provider is registered: what only metrics need is computed then alone. */
export function metricsActive(): boolean {
  return instruments() !== undefined;
}

/** An append's events, or a conflict one of its tries met. */
export function countAppend(streamName: string, events: number): void {
  instruments()?.eventsAppended(events, { [Attr.streamName]: streamName });
}

export function countConflict(streamName: string): void {
  instruments()?.appendConflicts(1, { [Attr.streamName]: streamName });
}

/** One projection's share of a batch, as `BatchMetrics` reports it to `onMetrics`. */
export interface ProjectionFigures {
  readonly eventsApplied: number;
  readonly alreadyApplied: number;
  readonly rowsWritten: number;
  readonly gapReads: number;
  readonly lostRaces: number;
  readonly rowsFailed: number;
  readonly rowsParked: number;
}

/** A batch's figures, as `BatchMetrics` reports them to `onMetrics`, and the records it failed. */
export interface BatchFigures {
  readonly records: number;
  readonly decodeFailures: number;
  readonly failedRecords: number;
  readonly durationMs: number;
  readonly projections: Readonly<Record<string, ProjectionFigures>>;
}

/** Records a batch's figures under its transport (`lambda`, `kinesis`, `pipe`, `feed`, `records`). */
export function recordBatch(figures: BatchFigures, transport: string): void {
  const meters = instruments();
  if (meters === undefined) return;
  const by = { [Attr.transport]: transport };
  meters.records(figures.records, by);
  meters.recordsFailed(figures.failedRecords, by);
  meters.recordsUndecodable(figures.decodeFailures, by);
  meters.batchDuration(figures.durationMs / 1000, by);
  for (const [projection, share] of Object.entries(figures.projections)) {
    const of = { [Attr.projection]: projection };
    meters.eventsApplied(share.eventsApplied, of);
    meters.eventsAlreadyApplied(share.alreadyApplied, of);
    meters.rowsWritten(share.rowsWritten, of);
    meters.rowsFailed(share.rowsFailed, of);
    meters.rowsParked(share.rowsParked, of);
    meters.gapReads(share.gapReads, of);
    meters.lostRaces(share.lostRaces, of);
  }
}

/**
 * The projection lag of events a delivery applied, from their append (`timestamp`, ISO 8601) to `now`
 * (epoch ms), when their rows were written. Events without an append time (items of 0.2 without one) are left out.
 */
export function recordLag(projection: string, events: Iterable<{ readonly timestamp: string }>, now: number): void {
  const meters = instruments();
  if (meters === undefined) return;
  const of = { [Attr.projection]: projection };
  for (const event of events) {
    const appendedAt = Date.parse(event.timestamp);
    if (!Number.isNaN(appendedAt)) meters.projectionLag(Math.max(0, now - appendedAt) / 1000, of);
  }
}

/** The age of the oldest record of a change-feed read. */
export function recordIteratorAge(consumer: string, ageMs: number): void {
  instruments()?.iteratorAge(Math.max(0, ageMs) / 1000, { [Attr.consumer]: consumer });
}

/** The change feed's lease taken, released or lost. */
export function countLeaseChange(consumer: string, change: 'acquired' | 'released' | 'lost'): void {
  instruments()?.leaseChanges(1, { [Attr.consumer]: consumer, [Attr.leaseChange]: change });
}

/** A backfill's progress: instances brought up to date and the events that took. */
export function countBackfill(projection: string, instances: number, events: number): void {
  const meters = instruments();
  if (meters === undefined) return;
  meters.backfillInstances(instances, { [Attr.projection]: projection });
  meters.backfillEvents(events, { [Attr.projection]: projection });
}

import type { Counter, Histogram, MeterProvider } from '@opentelemetry/api';
import { Attr, Metrics, type MetricDefinition } from './names';
import { otel } from './otel-api';

type MetricKey = keyof typeof Metrics;
type Instruments = { readonly [K in MetricKey]: (typeof Metrics)[K]['kind'] extends 'counter' ? Counter : Histogram };

/** The instruments of the meter provider registered when they were made; `undefined` for none registered. */
let cached: { readonly provider: MeterProvider; readonly instruments: Instruments | undefined } | undefined;

const METER = 'dynafold';

/**
 * The instruments of the registered meter provider, or `undefined` when there is none (no API, or no
 * SDK registered): callers skip computing what nobody records. Made again when the app registers
 * another provider, since the API hands out no proxy meters.
 */
function instruments(): Instruments | undefined {
  const api = otel();
  if (api === undefined) return undefined;
  const provider = api.metrics.getMeterProvider();
  if (cached?.provider === provider) return cached.instruments;
  const meter = provider.getMeter(METER);
  let made: Instruments | undefined;
  if (meter !== api.createNoopMeter()) {
    const entries = Object.entries(Metrics).map(([key, definition]: [string, MetricDefinition]) => {
      const options = { unit: definition.unit, description: definition.description };
      return [key, definition.kind === 'counter' ? meter.createCounter(definition.name, options) : meter.createHistogram(definition.name, options)];
    });
    made = Object.fromEntries(entries) as Instruments;
  }
  cached = { provider, instruments: made };
  return made;
}

/** Whether a meter provider is registered: what only metrics need is computed then alone. */
export function metricsActive(): boolean {
  return instruments() !== undefined;
}

/** An append's events, or a conflict one of its tries met. */
export function countAppend(streamName: string, events: number): void {
  instruments()?.eventsAppended.add(events, { [Attr.streamName]: streamName });
}

export function countConflict(streamName: string): void {
  instruments()?.appendConflicts.add(1, { [Attr.streamName]: streamName });
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
  meters.records.add(figures.records, by);
  meters.recordsFailed.add(figures.failedRecords, by);
  meters.recordsUndecodable.add(figures.decodeFailures, by);
  meters.batchDuration.record(figures.durationMs / 1000, by);
  for (const [projection, share] of Object.entries(figures.projections)) {
    const of = { [Attr.projection]: projection };
    meters.eventsApplied.add(share.eventsApplied, of);
    meters.eventsAlreadyApplied.add(share.alreadyApplied, of);
    meters.rowsWritten.add(share.rowsWritten, of);
    meters.rowsFailed.add(share.rowsFailed, of);
    meters.rowsParked.add(share.rowsParked, of);
    meters.gapReads.add(share.gapReads, of);
    meters.lostRaces.add(share.lostRaces, of);
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
    if (!Number.isNaN(appendedAt)) meters.projectionLag.record(Math.max(0, now - appendedAt) / 1000, of);
  }
}

/** The age of the oldest record of a change-feed read. */
export function recordIteratorAge(consumer: string, ageMs: number): void {
  instruments()?.iteratorAge.record(Math.max(0, ageMs) / 1000, { [Attr.consumer]: consumer });
}

/** The change feed's lease taken, released or lost. */
export function countLeaseChange(consumer: string, change: 'acquired' | 'released' | 'lost'): void {
  instruments()?.leaseChanges.add(1, { [Attr.consumer]: consumer, [Attr.leaseChange]: change });
}

/** A backfill's progress: instances brought up to date and the events that took. */
export function countBackfill(projection: string, instances: number, events: number): void {
  const meters = instruments();
  if (meters === undefined) return;
  meters.backfillInstances.add(instances, { [Attr.projection]: projection });
  meters.backfillEvents.add(events, { [Attr.projection]: projection });
}

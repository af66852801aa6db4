/**
 * Randomized delivery under faults: the table's real stream records, delivered like Lambda (or a Pipe)
 * with ParallelizationFactor > 1 — shuffled, duplicated, split into batches of random sizes on concurrent
 * lanes — into the module-level `processBatch` of both projections, on a client that fails a share of
 * its calls. A batch with failures is redelivered from its earliest reported record. Afterwards every
 * row must equal its fold from the store, and every event must be applied exactly once.
 */
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { processBatch, type StreamEvent } from '../lib';
import { injectFaults, quickRetries, type FaultKind } from './faults';
import { randomInt, seededRandom, shuffle } from './random';
import { ChaosSummary } from './summary';
import { bind, checkRows, createTables, foldZones, readTruth, writeWorkload, type ClientConfig, type Tables, type Truth } from './world';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../__tests__/support/stream-records';

/** Everything one schedule needs: the world's tables, the records to deliver and the truth. */
export interface DeliveryInput {
  readonly config: ClientConfig;
  /** A clean client, for reading rows back. */
  readonly client: DynamoDBClient;
  readonly tables: Tables;
  readonly records: ReadonlyArray<_Record>;
  readonly truth: Truth;
}

/** Settings of one schedule. */
export interface ScheduleOptions {
  readonly seed: number;
  /** Share of the projection client's calls that fail. @defaultValue 0.08 */
  readonly faultRate?: number;
  readonly kinds?: ReadonlyArray<FaultKind>;
  /** SDK attempts per request (faults beyond them surface to dynafold). @defaultValue 2 */
  readonly maxAttempts?: number;
  /** Redeliveries of one batch before the schedule is declared stuck. @defaultValue 400 */
  readonly maxRedeliveries?: number;
}

/** Creates the tables, writes a seeded workload from concurrent writers, and reads its stream records and truth. */
export async function prepareDelivery(
  config: ClientConfig,
  client: DynamoDBClient,
  options: { seed: number; orders?: number; sensors?: number; chunks?: number },
): Promise<DeliveryInput> {
  const tables = await createTables(client);
  const bound = bind(client, tables, 'truth');
  const orderIds = Array.from({ length: options.orders ?? 8 }, (_, i) => `o-${i}`);
  const sensorIds = Array.from({ length: options.sensors ?? 5 }, (_, i) => `s-${i}`);
  await writeWorkload(bound, orderIds, sensorIds, options.chunks ?? 5, seededRandom(options.seed));
  const records = insertsOnly(await readStreamRecords(tables.streamArn));
  return { config, client, tables, records, truth: await readTruth(bound, orderIds, sensorIds) };
}

interface Delivered {
  readonly record: unknown;
  readonly id: string;
}

/** Runs one seeded schedule and returns what it did and found. */
export async function runSchedule(input: DeliveryInput, options: ScheduleOptions): Promise<ChaosSummary> {
  const { seed } = options;
  const summary = new ChaosSummary();
  const random = seededRandom(seed);
  const source: 'lambda' | 'pipe' = random() < 0.25 ? 'pipe' : 'lambda';
  const faulty = new DynamoDBClient({ ...input.config, retryStrategy: quickRetries(options.maxAttempts ?? 2) });
  const faults = injectFaults(faulty, {
    seed: seed ^ 0x5eed,
    rate: options.faultRate ?? 0.08,
    ...(options.kinds === undefined ? {} : { kinds: options.kinds }),
    readModelTables: [input.tables.viewsTable],
  });
  try {
    const suffix = `s${seed}`;
    const bound = bind(faulty, input.tables, suffix);
    const identify = (record: unknown): string => {
      const r = record as { eventID?: string; dynamodb?: { SequenceNumber?: string } };
      return (source === 'pipe' ? r.eventID : r.dynamodb?.SequenceNumber) ?? '';
    };

    // Shuffled, some records twice, split into batches on 1..6 concurrent lanes; half in Lambda's JSON form.
    const copies = shuffle(
      input.records.flatMap((record) => (random() < 0.3 ? [record, record] : [record])),
      random,
    );
    const lanes: Delivered[][][] = Array.from({ length: randomInt(random, 1, 6) }, () => []);
    for (let start = 0; start < copies.length; ) {
      const size = randomInt(random, 1, 30);
      const batch = copies.slice(start, start + size).map((record) => {
        const shaped = random() < 0.5 ? asLambdaRecord(record) : record;
        return { record: shaped, id: identify(shaped) };
      });
      lanes[randomInt(random, 0, lanes.length - 1)]?.push(batch);
      start += size;
    }

    const applied = { summaries: [] as StreamEvent[], zones: [] as StreamEvent[] };
    const rejected = new Set<string>();
    const maxRedeliveries = options.maxRedeliveries ?? 400;
    await Promise.all(
      lanes.map(async (batches) => {
        for (let batch of batches) {
          for (let redelivery = 0; ; redelivery++) {
            if (redelivery > maxRedeliveries) {
              summary.problem(`seed ${seed}: a batch was redelivered more than ${maxRedeliveries} times`);
              return;
            }
            let response: { batchItemFailures: Array<{ itemIdentifier: string }> };
            try {
              const result = await processBatch(
                batch.map((entry) => entry.record),
                { projections: bound.projections, source },
              );
              for (const outcome of result.outcomes.summaries) if (outcome.status === 'applied') applied.summaries.push(...outcome.applied);
              for (const outcome of result.outcomes.zones) {
                if (outcome.status !== 'applied') continue;
                applied.zones.push(...outcome.applied);
                for (const { event } of outcome.rejected) rejected.add(`${event.streamId}@${event.version}`);
              }
              if (result.decodeFailures.length > 0) summary.problem(`seed ${seed}: ${result.decodeFailures.length} real records failed to decode`);
              response = result.response;
            } catch (error) {
              // processBatch rejects only for a typed error that fails the whole invocation; Lambda redelivers it all.
              summary.problem(`seed ${seed}: processBatch rejected: ${String(error)}`);
              continue;
            }
            const first = response.batchItemFailures[0];
            if (first === undefined) break;
            const from = batch.findIndex((entry) => entry.id === first.itemIdentifier);
            if (from < 0) {
              summary.problem(`seed ${seed}: the response names ${first.itemIdentifier}, which is not in the batch`);
              return;
            }
            batch = batch.slice(from);
          }
        }
      }),
    );

    // Accounting: every event exactly once in `applied` (or rejected, for zone events that never had a row).
    const excused = excusedEvents(faults.lostResponses, bound, input.truth);
    const count = (events: StreamEvent[]) => {
      const seen = new Map<string, number>();
      for (const event of events) seen.set(`${event.streamId}@${event.version}`, (seen.get(`${event.streamId}@${event.version}`) ?? 0) + 1);
      return seen;
    };
    const orderApplied = count(applied.summaries);
    for (const [orderId, events] of input.truth.orders) {
      for (const event of events) {
        const n = orderApplied.get(`${orderId}@${event.version}`) ?? 0;
        if (n > 1) {
          summary.doubleApplied++;
          summary.problem(`seed ${seed}: Order ${orderId}@${event.version} applied ${n} times`);
        } else if (n === 0) {
          if (excused.has(`${bound.summaries.name}|${orderId}@${event.version}`)) summary.excusedEvents++;
          else {
            summary.lostEvents++;
            summary.problem(`seed ${seed}: Order ${orderId}@${event.version} never applied`);
          }
        }
      }
    }
    const zoneApplied = count(applied.zones);
    for (const [sensorId, events] of input.truth.sensors) {
      const { rejected: mustReject } = foldZones(sensorId, events);
      for (const event of events) {
        const id = `${sensorId}@${event.version}`;
        const n = zoneApplied.get(id) ?? 0;
        if (event.type === 'SensorNote' || mustReject.has(event.version)) {
          if (n > 0) {
            summary.doubleApplied++;
            summary.problem(`seed ${seed}: Sensor ${id} (${event.type}) must not be applied, was ${n} times`);
          } else if (event.type !== 'SensorNote' && !rejected.has(id)) {
            // A rejection is reported by the call whose write passed it; that write's answer may be lost.
            if (excused.has(`${bound.zones.name}|${id}`)) summary.excusedEvents++;
            else {
              summary.lostEvents++;
              summary.problem(`seed ${seed}: Sensor ${id} was never reported rejected`);
            }
          }
          continue;
        }
        if (n > 1) {
          summary.doubleApplied++;
          summary.problem(`seed ${seed}: Sensor ${id} applied ${n} times`);
        } else if (n === 0) {
          if (excused.has(`${bound.zones.name}|${id}`)) summary.excusedEvents++;
          else {
            summary.lostEvents++;
            summary.problem(`seed ${seed}: Sensor ${id} never applied`);
          }
        }
      }
    }

    const check = await checkRows(bind(input.client, input.tables, suffix), input.truth);
    summary.rowsChecked += check.rows;
    summary.divergedRows += check.diverged.length;
    for (const row of check.diverged) summary.problem(`seed ${seed}: diverged ${row}`);
    summary.runs = 1;
    summary.events = input.truth.events;
    summary.addFaults(faults.injected);
    return summary;
  } finally {
    faulty.destroy();
  }
}

/**
 * Events a write whose response was lost may have applied without any call reporting them: those of
 * the written row at or below the checkpoint it wrote. `applied` is at most once by contract there.
 */
function excusedEvents(lost: ReadonlyArray<{ item: Readonly<Record<string, unknown>> }>, bound: ReturnType<typeof bind>, truth: Truth): Set<string> {
  const excused = new Set<string>();
  const number = (value: unknown) => Number((value as { N?: string } | undefined)?.N ?? value);
  const text = (value: unknown) => String((value as { S?: string } | undefined)?.S ?? value);
  for (const { item } of lost) {
    const pk = text(item['pk']);
    if (pk.startsWith(`${bound.summaries.name}#`)) {
      const orderId = pk.slice(bound.summaries.name.length + 1);
      const upTo = number(item['version']);
      for (const event of truth.orders.get(orderId) ?? []) if (event.version <= upTo) excused.add(`${bound.summaries.name}|${orderId}@${event.version}`);
    } else if (pk.startsWith(`${bound.zones.name}#`)) {
      const sensorId = pk.slice(bound.zones.name.length + 1);
      const zone = text(item['zone']);
      const upTo = number(item['seq']);
      for (const event of truth.sensors.get(sensorId) ?? []) {
        if (event.version <= upTo && event.type !== 'SensorNote' && event.data.zone === zone) excused.add(`${bound.zones.name}|${sensorId}@${event.version}`);
      }
    }
  }
  return excused;
}

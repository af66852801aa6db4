/**
 * Randomized delivery under faults: the table's real stream records, delivered like Lambda (or a Pipe)
 * with ParallelizationFactor > 1 — shuffled, duplicated, split into batches of random sizes on concurrent
 * lanes; or, in a seeded share of schedules, read through 32 simulated shards that split and roll over
 * (`simulated.ts`) and delivered shard by shard, in order, each shard's batches on one lane — into the
 * module-level `processBatch` of every projection (single-stream, event-keyed,
 * multi-source, and removing rows), on a client that fails a share of its calls. A batch with failures is
 * redelivered from its earliest reported record. The order summaries and customer rows write what they
 * applied to an outbox (a fresh table per schedule), which an OutboxRelay on its own faulty client drains
 * from the outbox's stream records, while the rows are written or after, with a publish that sometimes
 * fails or loses its acknowledgement. Afterwards every row must equal its fold from the store, every event
 * must be applied exactly once and in version order per row and source instance, and every applied
 * event's message published at least once, in order per row, with the outbox empty. Poison schedules
 * deploy bugs, park rows and heal them step by step (`parking.ts`).
 */
import { DynamoDBStreamsClient, type _Record } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { StreamEvent } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { OutboxRelay } from 'dynafold/outbox';
import { readStreamRecords as readAllStreamRecords } from 'dynafold/feed';
import { injectFaults, quickRetries, type FaultKind } from './faults';
import { checkPublications, outboxItems, type Publication } from './outbox';
import { healPoisoned } from './parking';
import { drawPoison } from './poison';
import { disableStream } from './processes';
import { CUSTOMERS } from './sources';
import { randomInt, seededRandom, shuffle } from './random';
import { readSimulatedShards, simulatedEvents, simulationFigures } from './simulated';
import { ChaosSummary } from './summary';
import { VersionOrder } from './version-order';
import {
  bind,
  checkRows,
  createOutboxTable,
  createTables,
  dropTables,
  eventKey,
  expectedOutboxIds,
  foldAccount,
  foldZones,
  readTruth,
  worldIds,
  writeWorkload,
  type ClientConfig,
  type Tables,
  type Truth,
  type WorldIds,
} from './world';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../__tests__/support/stream-records';

/** Everything one schedule needs: the world's tables, the records to deliver and the truth. */
export interface DeliveryInput {
  readonly config: ClientConfig;
  /** A clean client, for reading rows back. */
  readonly client: DynamoDBClient;
  readonly tables: Tables;
  readonly ids: WorldIds;
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
  /** Give the summaries and customer projections an outbox, drained by a relay. @defaultValue true */
  readonly outbox?: boolean;
  /**
   * Poison a seeded few order summaries and customer rows (their `evolve` throws until fixed): they are
   * parked while every other row must equal its fold; then the fix is deployed and `retryParked` must
   * apply their events exactly once. @defaultValue false
   */
  readonly poison?: boolean;
  /** In a poison schedule, skip the event some rows are parked on after each partial fix. @defaultValue drawn from the seed (half) */
  readonly skips?: boolean;
  /** Read the records through 32 simulated shards and deliver them shard by shard. @defaultValue drawn from the seed (half) */
  readonly simulatedShards?: boolean;
}

/** Creates the tables, writes a seeded workload from concurrent writers, and reads its stream records and truth. */
export async function prepareDelivery(
  config: ClientConfig,
  client: DynamoDBClient,
  options: { seed: number; chunks?: number } & Partial<Record<keyof WorldIds, number>>,
): Promise<DeliveryInput> {
  const tables = await createTables(client);
  const bound = bind(client, tables, 'truth');
  // The writers lose answers too (and meet every other fault): each append must be stored once.
  const writerClient = new DynamoDBClient({ ...config, retryStrategy: quickRetries(2) });
  injectFaults(writerClient, { seed: options.seed ^ 0x3a11, rate: 0.08 });
  const ids = worldIds({
    orders: options.orders ?? 8,
    sensors: options.sensors ?? 5,
    purchases: options.purchases ?? 6,
    programs: options.programs ?? 2,
    accounts: options.accounts ?? 3,
  });
  const written = await writeWorkload(bind(writerClient, tables, 'writer'), ids, options.chunks ?? 5, seededRandom(options.seed)).finally(() =>
    writerClient.destroy(),
  );
  const records = insertsOnly(await readStreamRecords(tables.streamArn));
  // Nothing more is written: a disabled stream lets every simulated lineage over it end, so it can be read to its ends.
  await disableStream(client, tables.eventsTable);
  const truth = await readTruth(bound, ids);
  assertWritten(truth, written);
  return { config, client, tables, ids, records, truth };
}

/** Each instance holds exactly the versions its writer was answered: none written twice, none missing. */
function assertWritten(truth: Truth, written: ReadonlyMap<string, number>): void {
  const held: Array<[string, ReadonlyMap<string, ReadonlyArray<StreamEvent>>]> = [
    ['orders', truth.orders],
    ['sensors', truth.sensors],
    ['purchases', truth.purchases],
    ['programs', truth.programs],
    ['accounts', truth.accounts],
  ];
  for (const [kind, instances] of held) {
    for (const [id, events] of instances) {
      const answered = written.get(`${kind}#${id}`) ?? 0;
      if (events.length !== answered)
        throw new Error(`the workload's ${kind} ${id} holds ${events.length} events, its writer was answered ${answered}`);
    }
  }
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
  const outbox = options.outbox !== false ? await createOutboxTable(input.client, 'chaos') : undefined;
  try {
    const suffix = `s${seed}`;
    const tables: Tables = { ...input.tables, ...(outbox ?? {}) };
    const poison =
      options.poison === true
        ? drawPoison({ orders: input.ids.orders, customers: input.ids.purchases.length > 0 ? CUSTOMERS : [] }, random, options.skips)
        : undefined;
    const bound = bind(faulty, tables, suffix, poison);
    const identify = (record: unknown): string => {
      const r = record as { eventID?: string; dynamodb?: { SequenceNumber?: string } };
      return (source === 'pipe' ? r.eventID : r.dynamodb?.SequenceNumber) ?? '';
    };
    // Half in Lambda's JSON form.
    const shape = (record: _Record): Delivered => {
      const shaped = random() < 0.5 ? asLambdaRecord(record) : record;
      return { record: shaped, id: identify(shaped) };
    };
    const simulated = options.simulatedShards ?? random() < 0.5;
    const lanes = simulated
      ? await shardLanes(input, { seed, faultRate: options.faultRate ?? 0.08, random, shape, summary })
      : shuffledLanes(input.records, random, shape);

    const applied = { summaries: [] as StreamEvent[], zones: [] as StreamEvent[], customers: [] as StreamEvent[], accounts: [] as StreamEvent[] };
    const rejected = new Set<string>();
    const order = new VersionOrder();
    const maxRedeliveries = options.maxRedeliveries ?? 400;
    let lanesDone = false;
    const delivered = Promise.all(
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
              for (const name of ['summaries', 'customers', 'accounts'] as const) {
                for (const outcome of result.outcomes[name]) {
                  applied[name].push(...outcome.applied);
                  order.delivered(name, outcome);
                }
              }
              for (const outcome of result.outcomes.zones) {
                if (outcome.status !== 'applied') continue;
                applied.zones.push(...outcome.applied);
                order.delivered('zones', outcome);
                for (const { event } of outcome.rejected) rejected.add(eventKey(event));
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
    ).finally(() => (lanesDone = true));

    let skipped = new Set<string>();
    const notes = new Map<string, string[]>();
    if (poison !== undefined) {
      await delivered;
      skipped = await healPoisoned({ client: input.client, tables, suffix, bound, poison, truth: input.truth, applied, order, notes, summary, seed });
    }

    // The relay: on the outbox's stream records, while the rows are written (half the schedules) or after.
    let published: Publication[] = [];
    if (outbox !== undefined) {
      const concurrent = poison === undefined && random() < 0.5;
      if (!concurrent) await delivered;
      published = await relayOutbox(input, outbox, { seed, faultRate: options.faultRate ?? 0.08, summary, done: () => lanesDone });
    }
    await delivered;

    // Accounting: every event exactly once in `applied` (or rejected, for zone events that never had a row),
    // whatever answers were lost: a write that meets its own row is its call's success.
    const counts = Object.fromEntries(Object.entries(applied).map(([name, events]) => [name, tally(events)])) as Record<
      keyof typeof applied,
      Map<string, number>
    >;
    const expect = (name: keyof typeof applied, model: string, event: StreamEvent, rule: 'apply' | 'never' | 'reject') => {
      const id = eventKey(event);
      const n = counts[name].get(id) ?? 0;
      if (rule !== 'apply') {
        if (n > 0) {
          summary.doubleApplied++;
          const befell = notes.get(id);
          summary.problem(
            `seed ${seed}: ${name} ${id} (${event.type}) must not be applied${skipped.has(id) ? ' (skipped)' : ''}, was ${n} times${befell === undefined ? '' : `; ${befell.join('; ')}`}`,
          );
        } else if (rule === 'reject' && !rejected.has(id)) {
          summary.lostEvents++;
          summary.problem(`seed ${seed}: ${name} ${model} ${id} was never reported rejected`);
        }
        return;
      }
      if (n > 1) {
        summary.doubleApplied++;
        const befell = notes.get(id);
        summary.problem(`seed ${seed}: ${name} ${id} applied ${n} times${befell === undefined ? '' : `; ${befell.join('; ')}`}`);
      } else if (n === 0) {
        summary.lostEvents++;
        const befell = notes.get(id);
        summary.problem(`seed ${seed}: ${name} ${model} ${id} never applied${befell === undefined ? '' : `; ${befell.join('; ')}`}`);
      }
    };
    // Events skipped with skipParked are never applied.
    const unlessSkipped = (event: StreamEvent) => (skipped.has(eventKey(event)) ? 'never' : 'apply');
    for (const events of input.truth.orders.values())
      for (const event of events) expect('summaries', bound.summaries.name, event, unlessSkipped(event));
    for (const [sensorId, events] of input.truth.sensors) {
      const { rejected: mustReject } = foldZones(sensorId, events);
      for (const event of events)
        expect('zones', bound.zones.name, event, event.type === 'SensorNote' ? 'never' : mustReject.has(event.version) ? 'reject' : 'apply');
    }
    for (const events of [...input.truth.purchases.values(), ...input.truth.programs.values()])
      for (const event of events) expect('customers', bound.customers.name, event, unlessSkipped(event));
    for (const [accountId, events] of input.truth.accounts) {
      const fold = foldAccount(accountId, events);
      for (const event of events) expect('accounts', bound.accountRows.name, event, fold.applied.has(event.version) ? 'apply' : 'never');
    }

    for (const problem of order.problems) {
      summary.outOfOrder++;
      summary.problem(`seed ${seed}: ${problem}`);
    }
    const check = await checkRows(bind(input.client, tables, suffix), input.truth, skipped);
    summary.rowsChecked += check.rows;
    summary.multiSourceRows += check.multiSourceRows;
    summary.removedRows += check.removedRows;
    summary.divergedRows += check.diverged.length;
    for (const row of check.diverged) summary.problem(`seed ${seed}: diverged ${row}`);
    if (outbox !== undefined) {
      checkPublications(
        summary,
        `seed ${seed}`,
        published,
        expectedOutboxIds(input.truth, skipped),
        await outboxItems(input.client, outbox.outboxTable),
      );
    }
    summary.runs = 1;
    summary.events = input.truth.events;
    summary.addFaults(faults.injected);
    return summary;
  } finally {
    faulty.destroy();
    await dropTables(input.client, outbox?.outboxTable);
  }
}

function tally(events: ReadonlyArray<StreamEvent>): Map<string, number> {
  const seen = new Map<string, number>();
  for (const event of events) seen.set(eventKey(event), (seen.get(eventKey(event)) ?? 0) + 1);
  return seen;
}

/**
 * One relay (as one per outbox shard) on the outbox stream's records, read in order as they come, in
 * batches of random sizes redelivered from the earliest failed record; its client fails a share of its
 * calls, and `publish` sometimes fails (nothing sent) or loses its acknowledgement (sent, then it throws).
 * Polls until `done()` and the stream has nothing new. Resolves the publications in order.
 */
async function relayOutbox(
  input: DeliveryInput,
  outbox: { outboxTable: string; outboxStreamArn: string },
  options: { seed: number; faultRate: number; summary: ChaosSummary; done: () => boolean },
): Promise<Publication[]> {
  const { seed, summary } = options;
  const random = seededRandom(seed ^ 0x0b0b);
  const client = new DynamoDBClient({ ...input.config, retryStrategy: quickRetries(2) });
  const faults = injectFaults(client, { seed: seed ^ 0x7e1a, rate: options.faultRate, kinds: ['throttle', 'internal', 'timeout', 'lostResponse'] });
  const published: Publication[] = [];
  const publishFaults = new Map<string, number>();
  const relay = new OutboxRelay({
    client,
    table: outbox.outboxTable,
    concurrency: randomInt(random, 1, 4),
    publish: async (message) => {
      const roll = random();
      if (roll < options.faultRate / 2) {
        publishFaults.set('publish:failed', (publishFaults.get('publish:failed') ?? 0) + 1);
        throw new Error('publish failed (injected)');
      }
      published.push({ id: message.id, row: `${message.projection} ${JSON.stringify(message.key)}` });
      if (roll < options.faultRate) {
        publishFaults.set('publish:acknowledgementLost', (publishFaults.get('publish:acknowledgementLost') ?? 0) + 1);
        throw new Error('published, acknowledgement lost (injected)');
      }
    },
  });
  // One Streams client for the relay's life: a new one at every poll (every 5 to 30 ms) opened as many connections.
  const streams = new DynamoDBStreamsClient({ endpoint: input.config.endpoint, region: input.config.region, credentials: input.config.credentials });
  try {
    let taken = 0;
    for (let idle = false; ;) {
      const finished = options.done();
      const records = await readAllStreamRecords(streams, outbox.outboxStreamArn);
      const fresh = records.slice(taken);
      taken = records.length;
      for (let start = 0; start < fresh.length;) {
        const size = randomInt(random, 1, 25);
        let batch = fresh.slice(start, start + size).map((record) => (random() < 0.5 ? asLambdaRecord(record) : record)) as _Record[];
        start += size;
        for (let redelivery = 0; batch.length > 0; redelivery++) {
          if (redelivery > 400) {
            summary.problem(`seed ${seed}: an outbox batch was redelivered more than 400 times`);
            return published;
          }
          const result = await relay.processBatch(batch, { source: 'lambda' });
          const first = result.response.batchItemFailures[0];
          if (first === undefined) break;
          const from = batch.findIndex((record) => record.dynamodb?.SequenceNumber === first.itemIdentifier);
          if (from < 0) {
            summary.problem(`seed ${seed}: the relay's response names ${first.itemIdentifier}, which is not in the batch`);
            return published;
          }
          batch = batch.slice(from);
        }
      }
      idle = fresh.length === 0;
      if (finished && idle) break;
      if (idle) await new Promise((resolve) => setTimeout(resolve, randomInt(random, 5, 30)));
    }
  } catch (error) {
    summary.problem(`seed ${seed}: the relay's processBatch rejected: ${String(error)}`);
  } finally {
    summary.addFaults(new Map([...faults.injected].map(([key, n]) => [`relay-${key}`, n])));
    summary.addFaults(publishFaults);
    client.destroy();
    streams.destroy();
  }
  return published;
}

/** Shuffled, some records twice, split into batches of 1–30 on 1–6 concurrent lanes. */
function shuffledLanes(records: ReadonlyArray<_Record>, random: () => number, shape: (record: _Record) => Delivered): Delivered[][][] {
  const copies = shuffle(
    records.flatMap((record) => (random() < 0.3 ? [record, record] : [record])),
    random,
  );
  const lanes: Delivered[][][] = Array.from({ length: randomInt(random, 1, 6) }, () => []);
  for (let start = 0; start < copies.length;) {
    const size = randomInt(random, 1, 30);
    lanes[randomInt(random, 0, lanes.length - 1)]?.push(copies.slice(start, start + size).map(shape));
    start += size;
  }
  return lanes;
}

/**
 * The records read through 32 simulated shards (split and rolled over as the seed says, with the Streams
 * API's faults), each of which must hold every record exactly once; then each shard's records in order,
 * some twice, in batches of 1–30 on one of 1–6 concurrent lanes, the shards of a lane in lineage order.
 */
async function shardLanes(
  input: DeliveryInput,
  options: { seed: number; faultRate: number; random: () => number; shape: (record: _Record) => Delivered; summary: ChaosSummary },
): Promise<Delivered[][][]> {
  const { random, summary } = options;
  const stream = await simulatedEvents(input.config, input.tables.streamArn, options.seed, options.faultRate);
  try {
    const shards = await readSimulatedShards(stream);
    const figures = simulationFigures(stream.counts());
    summary.addFaults(figures.faults);
    summary.simulatedSchedules++;
    summary.shardsOpened += shards.length;
    summary.shardSplits += figures.splits;
    summary.shardRollovers += figures.rollovers;
    const read = shards.flatMap((shard) => insertsOnly(shard.records));
    const ids = (records: ReadonlyArray<_Record>) => records.map((record) => record.eventID ?? '').sort();
    if (JSON.stringify(ids(read)) !== JSON.stringify(ids(input.records)))
      summary.problem(
        `seed ${options.seed}: the simulated shards held ${read.length} event records, DynamoDB Local's stream ${input.records.length} (or other ones)`,
      );
    const lanes: Delivered[][][] = Array.from({ length: randomInt(random, 1, 6) }, () => []);
    for (const shard of shards) {
      const lane = lanes[randomInt(random, 0, lanes.length - 1)] as Delivered[][];
      const copies = insertsOnly(shard.records).flatMap((record) => (random() < 0.3 ? [record, record] : [record]));
      for (let start = 0; start < copies.length;) {
        const size = randomInt(random, 1, 30);
        lane.push(copies.slice(start, start + size).map(options.shape));
        start += size;
      }
    }
    return lanes;
  } finally {
    stream.close();
  }
}

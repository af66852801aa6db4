/**
 * Randomized delivery under faults: the table's real stream records, delivered like Lambda (or a Pipe)
 * with ParallelizationFactor > 1 — shuffled, duplicated, split into batches of random sizes on concurrent
 * lanes — into the module-level `processBatch` of every projection (single-stream, event-keyed,
 * multi-source, and removing rows), on a client that fails a share of its calls. A batch with failures is
 * redelivered from its earliest reported record. The order summaries and customer rows write what they
 * applied to an outbox (a fresh table per schedule), which an OutboxRelay on its own faulty client drains
 * from the outbox's stream records, while the rows are written or after, with a publish that sometimes
 * fails or loses its acknowledgement. Afterwards every row must equal its fold from the store, every event
 * must be applied exactly once, and every applied event's message published at least once, in order per
 * row, with the outbox empty.
 */
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { OutboxRelay, processBatch, type StreamEvent } from 'dynafold';
import { injectFaults, quickRetries, type FaultKind } from './faults';
import { checkPublications, dropTable, outboxItems, type Publication } from './outbox';
import { CUSTOMERS, type PoisonWorld } from './sources';
import { randomInt, seededRandom, shuffle } from './random';
import { ChaosSummary } from './summary';
import {
  bind,
  checkRows,
  createOutboxTable,
  createTables,
  expectedOutboxIds,
  foldAccount,
  foldZones,
  readTruth,
  worldIds,
  writeWorkload,
  type Bound,
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
}

/** Creates the tables, writes a seeded workload from concurrent writers, and reads its stream records and truth. */
export async function prepareDelivery(
  config: ClientConfig,
  client: DynamoDBClient,
  options: { seed: number; chunks?: number } & Partial<Record<keyof WorldIds, number>>,
): Promise<DeliveryInput> {
  const tables = await createTables(client);
  const bound = bind(client, tables, 'truth');
  const ids = worldIds({
    orders: options.orders ?? 8,
    sensors: options.sensors ?? 5,
    purchases: options.purchases ?? 6,
    programs: options.programs ?? 2,
    accounts: options.accounts ?? 3,
  });
  await writeWorkload(bound, ids, options.chunks ?? 5, seededRandom(options.seed));
  const records = insertsOnly(await readStreamRecords(tables.streamArn));
  return { config, client, tables, ids, records, truth: await readTruth(bound, ids) };
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
    const poison = options.poison === true ? poisonWorld(input.ids, random) : undefined;
    const bound = bind(faulty, tables, suffix, poison);
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
    for (let start = 0; start < copies.length;) {
      const size = randomInt(random, 1, 30);
      const batch = copies.slice(start, start + size).map((record) => {
        const shaped = random() < 0.5 ? asLambdaRecord(record) : record;
        return { record: shaped, id: identify(shaped) };
      });
      lanes[randomInt(random, 0, lanes.length - 1)]?.push(batch);
      start += size;
    }

    const applied = { summaries: [] as StreamEvent[], zones: [] as StreamEvent[], customers: [] as StreamEvent[], accounts: [] as StreamEvent[] };
    const rejected = new Set<string>();
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
                for (const outcome of result.outcomes[name]) applied[name].push(...outcome.applied);
              }
              for (const outcome of result.outcomes.zones) {
                if (outcome.status !== 'applied') continue;
                applied.zones.push(...outcome.applied);
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

    if (poison !== undefined) {
      await delivered;
      await replayPoisoned(input, tables, suffix, bound, poison, applied, summary, seed);
    }

    // The relay: on the outbox's stream records, while the rows are written (half the schedules) or after.
    let published: Publication[] = [];
    if (outbox !== undefined) {
      const concurrent = poison === undefined && random() < 0.5;
      if (!concurrent) await delivered;
      published = await relayOutbox(input, outbox, { seed, faultRate: options.faultRate ?? 0.08, summary, done: () => lanesDone });
    }
    await delivered;

    // Accounting: every event exactly once in `applied` (or rejected, for zone events that never had a row).
    const excused = excusedEvents(faults.lostResponses, bound, input.truth);
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
          summary.problem(`seed ${seed}: ${name} ${id} (${event.type}) must not be applied, was ${n} times`);
        } else if (rule === 'reject' && !rejected.has(id)) {
          // A rejection is reported by the call whose write passed it; that write's answer may be lost.
          if (excused.has(`${model}|${id}`)) summary.excusedEvents++;
          else {
            summary.lostEvents++;
            summary.problem(`seed ${seed}: ${name} ${id} was never reported rejected`);
          }
        }
        return;
      }
      if (n > 1) {
        summary.doubleApplied++;
        summary.problem(`seed ${seed}: ${name} ${id} applied ${n} times`);
      } else if (n === 0) {
        if (excused.has(`${model}|${id}`)) summary.excusedEvents++;
        else {
          summary.lostEvents++;
          summary.problem(`seed ${seed}: ${name} ${id} never applied`);
        }
      }
    };
    for (const events of input.truth.orders.values()) for (const event of events) expect('summaries', bound.summaries.name, event, 'apply');
    for (const [sensorId, events] of input.truth.sensors) {
      const { rejected: mustReject } = foldZones(sensorId, events);
      for (const event of events)
        expect('zones', bound.zones.name, event, event.type === 'SensorNote' ? 'never' : mustReject.has(event.version) ? 'reject' : 'apply');
    }
    for (const events of [...input.truth.purchases.values(), ...input.truth.programs.values()])
      for (const event of events) expect('customers', bound.customers.name, event, 'apply');
    for (const [accountId, events] of input.truth.accounts) {
      const fold = foldAccount(accountId, events);
      for (const event of events) expect('accounts', bound.accountRows.name, event, fold.applied.has(event.version) ? 'apply' : 'never');
    }

    const check = await checkRows(bind(input.client, tables, suffix), input.truth);
    summary.rowsChecked += check.rows;
    summary.multiSourceRows += check.multiSourceRows;
    summary.removedRows += check.removedRows;
    summary.divergedRows += check.diverged.length;
    for (const row of check.diverged) summary.problem(`seed ${seed}: diverged ${row}`);
    if (outbox !== undefined) {
      checkPublications(summary, `seed ${seed}`, published, expectedOutboxIds(input.truth), await outboxItems(input.client, outbox.outboxTable));
    }
    summary.runs = 1;
    summary.events = input.truth.events;
    summary.addFaults(faults.injected);
    return summary;
  } finally {
    faulty.destroy();
    if (outbox !== undefined) await dropTable(input.client, outbox.outboxTable);
  }
}

/** `<stream>#<stream id>@<version>`: an event's identity across streams. */
function eventKey(event: { readonly streamName: string; readonly streamId: string; readonly version: number }): string {
  return `${event.streamName}#${event.streamId}@${event.version}`;
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
  const faults = injectFaults(client, { seed: seed ^ 0x7e1a, rate: options.faultRate, kinds: ['throttle', 'internal', 'timeout'] });
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
  try {
    let taken = 0;
    for (let idle = false; ;) {
      const finished = options.done();
      const records = await readStreamRecords(outbox.outboxStreamArn);
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
  }
  return published;
}

/**
 * Events a write whose response was lost may have applied without any call reporting them: those of
 * the written row at or below the checkpoint it wrote (per source instance, for a multi-source row).
 * `applied` is at most once by contract there.
 */
function excusedEvents(lost: ReadonlyArray<{ item: Readonly<Record<string, unknown>> }>, bound: ReturnType<typeof bind>, truth: Truth): Set<string> {
  const excused = new Set<string>();
  const number = (value: unknown) => Number((value as { N?: string } | undefined)?.N ?? value);
  const text = (value: unknown) => String((value as { S?: string } | undefined)?.S ?? value);
  const excuse = (model: string, events: ReadonlyArray<StreamEvent>, upTo: number, feeds: (event: StreamEvent) => boolean = () => true) => {
    for (const event of events) if (event.version <= upTo && feeds(event)) excused.add(`${model}|${eventKey(event)}`);
  };
  for (const { item } of lost) {
    const pk = text(item['pk']);
    const rowOf = (model: { name: string }) => (pk.startsWith(`${model.name}#`) ? pk.slice(model.name.length + 1) : undefined);
    const orderId = rowOf(bound.summaries);
    const sensorId = rowOf(bound.zones);
    const customer = rowOf(bound.customers);
    const accountId = rowOf(bound.accountRows);
    if (orderId !== undefined) excuse(bound.summaries.name, truth.orders.get(orderId) ?? [], number(item['version']));
    if (sensorId !== undefined) {
      const zone = text(item['zone']);
      excuse(
        bound.zones.name,
        truth.sensors.get(sensorId) ?? [],
        number(item['seq']),
        (event) => event.type !== 'SensorNote' && (event.data as { zone: string }).zone === zone,
      );
    }
    if (accountId !== undefined) excuse(bound.accountRows.name, truth.accounts.get(accountId) ?? [], number(item['version']));
    if (customer !== undefined) {
      const raw = item['_sources'] as { M?: Record<string, unknown> } | Record<string, unknown> | undefined;
      const sources = ((raw as { M?: Record<string, unknown> } | undefined)?.M ?? raw ?? {}) as Record<string, unknown>;
      for (const [instance, checkpoint] of Object.entries(sources)) {
        const cut = instance.indexOf('#');
        const [stream, id] = [instance.slice(0, cut), instance.slice(cut + 1)];
        const events = (stream === 'Purchase' ? truth.purchases : truth.programs).get(id) ?? [];
        excuse(bound.customers.name, events, number(checkpoint), (event) => (event.data as { customer?: string }).customer === customer);
      }
    }
  }
  return excused;
}

/** A seeded few orders and customers whose rows a deployed bug poisons (at least one of each). */
function poisonWorld(ids: WorldIds, random: () => number): PoisonWorld {
  const pick = (all: ReadonlyArray<string>) => {
    const chosen = all.filter(() => random() < 0.25);
    return new Set(chosen.length > 0 || all.length === 0 ? chosen : [all[Math.floor(random() * all.length)] as string]);
  };
  return { orders: pick(ids.orders), customers: pick(ids.purchases.length > 0 ? CUSTOMERS : []), fixed: false };
}

/**
 * While the poisoned rows are parked, every other row must equal its fold; then the fix is deployed and
 * `retryParked` replays them (again while faults fail some calls), their events joining `applied`.
 */
async function replayPoisoned(
  input: DeliveryInput,
  tables: Tables,
  suffix: string,
  bound: Bound,
  poison: PoisonWorld,
  applied: Record<'summaries' | 'customers', StreamEvent[]>,
  summary: ChaosSummary,
  seed: number,
): Promise<void> {
  const clean = bind(input.client, tables, suffix);
  const poisoned = (row: string) =>
    [...poison.orders].some((id) => row.startsWith(`${clean.summaries.name} ${id}:`)) ||
    [...poison.customers].some((customer) => row.startsWith(`${clean.customers.name} ${customer}:`));
  const whileParked = await checkRows(clean, input.truth);
  for (const row of whileParked.diverged.filter((row) => !poisoned(row))) summary.problem(`seed ${seed}: while rows were parked, diverged ${row}`);
  poison.fixed = true;
  for (const name of ['summaries', 'customers'] as const) {
    const projection = bound.projections[name];
    let counted = false;
    for (let pass = 0; ; pass++) {
      // Faults fail some listings too (the Scan's throttles outlast the SDK's retries): list again.
      const parked = await listParked(projection);
      if (parked === undefined) continue;
      if (parked.length === 0) break;
      if (!counted) summary.rowsParked += parked.length;
      counted = true;
      if (pass >= 20) {
        summary.problem(`seed ${seed}: ${parked.length} ${name} rows still parked after ${pass} replays`);
        break;
      }
      // Faults fail some replays (transient, never counted): what is still parked is replayed again.
      for (const outcome of await projection.retryParked().catch(() => [])) applied[name].push(...outcome.applied);
    }
  }
}

async function listParked(projection: { parkedRows(): AsyncIterable<unknown> }): Promise<unknown[] | undefined> {
  const parked: unknown[] = [];
  try {
    for await (const row of projection.parkedRows()) parked.push(row);
    return parked;
  } catch {
    return undefined;
  }
}

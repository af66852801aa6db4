/**
 * The chaos suite's world: one events table carrying an Order stream (one summary row per order), a
 * Sensor stream (one row per sensor and zone, keyed by an event field), Purchase and Loyalty streams (one
 * customer row fed by many instances of both: a multi-source projection) and an Account stream (rows
 * removed on closing and recreated on reopening, with a revision); a views table for every read model,
 * optionally an outbox table the order summaries and customer rows write their applied events to; a
 * seeded workload of multi-event appends, and the truth every projected row is checked against: its fold
 * from the store.
 */
import { CreateTableCommand, DeleteTableCommand, type DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { ConcurrencyError, Projection, eventsTableDefinition, readModelTableDefinition, type NewEventOf, type StreamEvent } from 'dynafold';
import { outboxTableDefinition } from 'dynafold/outbox';
import { evolveSummary, foldSummary, initialSummary, orderSummaries, type OrderSummary } from '../__tests__/support/order-projection';
import { type orderEventSchemas, orderStream, type OrderEvent } from '../__tests__/support/orders';
import { sensorStream, zoneProjection, zoneReadings, ZoneNotPlaced } from '../__tests__/support/sensors';
import { randomInt, seededRandom } from './random';
import {
  CUSTOMERS,
  accountBalances,
  accountProjection,
  accountStream,
  appendAccountChunk,
  appendLoyaltyChunk,
  appendPurchaseChunk,
  customerProjection,
  customerTotals,
  foldAccount,
  foldCustomer,
  loyaltyStream,
  outboxMessage,
  POISON_POLICY,
  Poisoned,
  purchaseStream,
} from './sources';
import { chokes, type PoisonWorld } from './poison';

export type ClientConfig = DynamoDBClientConfig & { endpoint: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } };

export type OrderStream = ReturnType<typeof orderStream>;
export type SensorStream = ReturnType<typeof sensorStream>;
export type SensorEvent = StreamEvent &
  (
    | { type: 'SensorPlaced'; data: { zone: string } }
    | { type: 'SensorReading'; data: { zone: string; celsius: number } }
    | { type: 'SensorNote'; data: { text: string } }
  );

/** A zone row as a full fold of its sensor's stream gives it (without timestamps). */
export interface ZoneRow {
  sensorId: string;
  zone: string;
  readings: number;
  maxCelsius: number;
  seq: number;
  alertKey: string;
}

export function uniqueTableName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** Tables and streams on a client. */
export interface Tables {
  readonly eventsTable: string;
  readonly viewsTable: string;
  readonly streamArn: string;
  /** The outbox table the summaries and customer projections write to, when there is one. */
  readonly outboxTable?: string;
  readonly outboxStreamArn?: string;
}

export async function createTables(client: DynamoDBClient, prefix = 'chaos', options: { outbox?: boolean } = {}): Promise<Tables> {
  const eventsTable = uniqueTableName(`${prefix}-events`);
  const created = await client.send(new CreateTableCommand(eventsTableDefinition(eventsTable)));
  const streamArn = created.TableDescription?.LatestStreamArn;
  if (streamArn === undefined) throw new Error('the events table has no stream');
  const viewsTable = uniqueTableName(`${prefix}-views`);
  const models = [
    orderSummaries(client, viewsTable),
    zoneReadings(client, viewsTable),
    customerTotals(client, viewsTable),
    accountBalances(client, viewsTable),
  ];
  await client.send(new CreateTableCommand(readModelTableDefinition(viewsTable, models)));
  return { eventsTable, viewsTable, streamArn, ...(options.outbox === true ? await createOutboxTable(client, prefix) : {}) };
}

/** Deletes tables a world is done with (a missing one is fine): DynamoDB Local (`-inMemory`) keeps every table in its heap. */
export async function dropTables(client: DynamoDBClient, ...tables: ReadonlyArray<string | undefined>): Promise<void> {
  for (const table of tables) {
    if (table !== undefined) await client.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
  }
}

/** An outbox table with its stream. */
export async function createOutboxTable(client: DynamoDBClient, prefix = 'chaos'): Promise<{ outboxTable: string; outboxStreamArn: string }> {
  const outboxTable = uniqueTableName(`${prefix}-outbox`);
  const created = await client.send(new CreateTableCommand(outboxTableDefinition(outboxTable)));
  const outboxStreamArn = created.TableDescription?.LatestStreamArn;
  if (outboxStreamArn === undefined) throw new Error('the outbox table has no stream');
  return { outboxTable, outboxStreamArn };
}

/** The README's order summary projection, writing what it applied to the outbox when there is one. */
function summaryProjection(
  orders: OrderStream,
  readModel: ReturnType<typeof orderSummaries>,
  outboxTable: string | undefined,
  poison: PoisonWorld | undefined,
) {
  return new Projection({
    stream: orders,
    readModel,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => {
      if (chokes(poison, 'orders', event.streamId, event)) throw new Poisoned(event.streamId);
      return evolveSummary(state, event);
    },
    checkpoint: 'version',
    ...(outboxTable === undefined ? {} : { outbox: { table: outboxTable, message: outboxMessage } }),
    ...(poison === undefined ? {} : { poison: POISON_POLICY }),
  });
}

/** Streams and projections over `client` (a faulty one for the projections, a clean one for the truth). */
export function bind(client: DynamoDBClient, tables: Tables, modelSuffix: string, poison?: PoisonWorld) {
  const orders = orderStream(client, tables.eventsTable);
  const sensors = sensorStream(client, tables.eventsTable);
  const purchases = purchaseStream(client, tables.eventsTable);
  const loyalty = loyaltyStream(client, tables.eventsTable);
  const accounts = accountStream(client, tables.eventsTable);
  const summaries = orderSummaries(client, tables.viewsTable, `OrderSummary${modelSuffix}`);
  const zones = zoneReadings(client, tables.viewsTable, `ZoneReading${modelSuffix}`);
  const customers = customerTotals(client, tables.viewsTable, `Customer${modelSuffix}`);
  const accountRows = accountBalances(client, tables.viewsTable, `Account${modelSuffix}`);
  return {
    orders,
    sensors,
    purchases,
    loyalty,
    accounts,
    summaries,
    zones,
    customers,
    accountRows,
    projections: {
      summaries: summaryProjection(orders, summaries, tables.outboxTable, poison),
      zones: zoneProjection(sensors, zones),
      customers: customerProjection(purchases, loyalty, customers, tables.outboxTable, poison),
      accounts: accountProjection(accounts, accountRows),
    },
  };
}

/** The stream instances of a world. */
export interface WorldIds {
  readonly orders: ReadonlyArray<string>;
  readonly sensors: ReadonlyArray<string>;
  readonly purchases: ReadonlyArray<string>;
  readonly programs: ReadonlyArray<string>;
  readonly accounts: ReadonlyArray<string>;
}

/** `counts` instances of each stream (none where not given). */
export function worldIds(counts: Partial<Record<keyof WorldIds, number>>): WorldIds {
  // Every stream draws its instance ids from one small alphabet, so ids collide across streams (and with
  // the customers, drawn from it too): identity bugs keyed by stream id alone show up as diverged rows.
  const ids = (n = 0) => SMALL_IDS.slice(0, n);
  return {
    orders: ids(counts.orders),
    sensors: ids(counts.sensors),
    purchases: ids(counts.purchases),
    programs: ids(counts.programs),
    accounts: ids(counts.accounts),
  };
}

/** Ids from a two-letter alphabet, shortest first: a, b, aa, ab, ba, bb, aaa, … */
export const SMALL_IDS: ReadonlyArray<string> = Array.from({ length: 62 }, (_, n) => {
  let id = '';
  for (let rest = n + 2; rest > 1; rest = Math.floor(rest / 2)) id = (rest % 2 === 0 ? 'a' : 'b') + id;
  return id;
});

export type Bound = ReturnType<typeof bind>;

export const ZONES = ['north', 'south', 'east'] as const;

/** Appends one random chunk (1–4 events) to an order; resolves the events written. */
export async function appendOrderChunk(
  orders: OrderStream,
  orderId: string,
  version: number,
  random: () => number,
  idempotencyKey?: string,
): Promise<number> {
  if (version === 0) {
    const result = await orders.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: `c-${orderId}` } }], {
      expectedVersion: 0,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
    return result.version;
  }
  const events = Array.from({ length: randomInt(random, 1, 4) }, (_, i): NewEventOf<typeof orderEventSchemas> =>
    random() < 0.08 ? { type: 'OrderShipped', data: {} } : { type: 'ItemAdded', data: { sku: `s${version}-${i}`, price: randomInt(random, 1, 50) } },
  );
  const result = await orders.append({ orderId }, events, { expectedVersion: version, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) });
  return result.version;
}

/** Appends one random chunk to a sensor: placements, readings (some before their zone is placed) and notes. */
export async function appendSensorChunk(
  sensors: SensorStream,
  sensorId: string,
  version: number,
  random: () => number,
  idempotencyKey?: string,
): Promise<number> {
  const events = Array.from({ length: randomInt(random, 1, 4) }, () => {
    const zone = ZONES[randomInt(random, 0, ZONES.length - 1)] as string;
    const roll = random();
    if (roll < 0.2) return { type: 'SensorPlaced' as const, data: { zone } };
    if (roll < 0.3) return { type: 'SensorNote' as const, data: { text: `note ${version}` } };
    return { type: 'SensorReading' as const, data: { zone, celsius: randomInt(random, -10, 45) } };
  });
  const result = await sensors.append({ sensorId }, events, {
    expectedVersion: version,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  });
  return result.version;
}

/** Appends one random chunk to stream instance `id` of the world's kind `kind`; resolves the new version. */
export function appendChunk(
  bound: Bound,
  kind: keyof WorldIds,
  id: string,
  version: number,
  random: () => number,
  idempotencyKey?: string,
): Promise<number> {
  switch (kind) {
    case 'orders':
      return appendOrderChunk(bound.orders, id, version, random, idempotencyKey);
    case 'sensors':
      return appendSensorChunk(bound.sensors, id, version, random, idempotencyKey);
    case 'purchases':
      return appendPurchaseChunk(bound.purchases, id, version, random, idempotencyKey);
    case 'programs':
      return appendLoyaltyChunk(bound.loyalty, id, version, random, idempotencyKey);
    case 'accounts':
      return appendAccountChunk(bound.accounts, id, version, random, idempotencyKey);
  }
}

/**
 * A seeded workload: every stream instance gets `chunks` appends, from concurrent writers. Each instance
 * draws its events from a PRNG of its own, so the same seed writes the same events however the writers
 * interleave. An append that fails (its client faulty) is tried again with the same chunk, at the same
 * version: an earlier try may have landed although the SDK gave up, so a `ConcurrencyError` then means the
 * chunk is there (each instance has one writer). A `ConcurrencyError` on a first try is a bug: the store
 * took the append's own commit for a rival's. Resolves each instance's version, by `kind#id`, for the
 * caller to compare with what the store holds (an append written twice shows there).
 */
export async function writeWorkload(bound: Bound, ids: WorldIds, chunks: number, random: () => number): Promise<Map<string, number>> {
  const writers = (Object.keys(ids) as Array<keyof WorldIds>).flatMap((kind) =>
    ids[kind].map((id) => ({ kind, id, random: seededRandom(Math.floor(random() * 2 ** 31)) })),
  );
  const versions = new Map<string, number>();
  await Promise.all(
    writers.map(async ({ kind, id, random: own }) => {
      let version = 0;
      for (let chunk = 0; chunk < chunks; chunk++) version = await appendRetried(bound, kind, id, version, Math.floor(own() * 2 ** 31));
      versions.set(`${kind}#${id}`, version);
    }),
  );
  return versions;
}

/** One chunk of a workload writer, tried until it lands (see `writeWorkload`); resolves the new version. */
async function appendRetried(bound: Bound, kind: keyof WorldIds, id: string, version: number, chunkSeed: number): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await appendChunk(bound, kind, id, version, seededRandom(chunkSeed));
    } catch (error) {
      if (error instanceof ConcurrencyError) {
        if (attempt === 1)
          throw new Error(`${kind} ${id}: an append at version ${version} found its version taken on its first try`, { cause: error });
        // An earlier try landed after all: the stream goes on from the chunk it wrote (its one writer is this one).
        return error.actualVersion;
      }
      if (attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** The zone rows a full fold of a sensor's events gives, by zone; rejected events listed by version. */
export function foldZones(sensorId: string, events: ReadonlyArray<SensorEvent>): { rows: Map<string, ZoneRow>; rejected: Set<number> } {
  const states = new Map<string, ZoneRow | undefined>();
  const rejected = new Set<number>();
  for (const event of events) {
    if (event.type === 'SensorNote') continue;
    const zone = event.data.zone;
    const state = states.get(zone) ?? { sensorId, zone, readings: -1, maxCelsius: -1000, seq: 0, alertKey: '' };
    if (event.type === 'SensorPlaced') {
      states.set(zone, { ...state, readings: 0, seq: event.version });
      continue;
    }
    if (state.readings < 0) {
      rejected.add(event.version);
      const existing = states.get(zone);
      if (existing !== undefined) states.set(zone, { ...existing, seq: event.version });
      continue;
    }
    states.set(zone, { ...state, readings: state.readings + 1, maxCelsius: Math.max(state.maxCelsius, event.data.celsius), seq: event.version });
  }
  const rows = new Map<string, ZoneRow>();
  for (const [zone, state] of states) if (state !== undefined) rows.set(zone, { ...state, alertKey: state.maxCelsius > 30 ? 'hot' : 'normal' });
  return { rows, rejected };
}

/** Every stream instance's events, read strongly consistent from the store. */
export interface Truth {
  readonly orders: Map<string, OrderEvent[]>;
  readonly sensors: Map<string, SensorEvent[]>;
  readonly purchases: Map<string, StreamEvent[]>;
  readonly programs: Map<string, StreamEvent[]>;
  readonly accounts: Map<string, StreamEvent[]>;
  /** The customer rows to check: every customer when the world has purchase or loyalty streams, else none. */
  readonly customers: ReadonlyArray<string>;
  readonly events: number;
}

export async function readTruth(bound: Bound, ids: Partial<WorldIds>): Promise<Truth> {
  const orders = new Map<string, OrderEvent[]>();
  const sensors = new Map<string, SensorEvent[]>();
  const purchases = new Map<string, StreamEvent[]>();
  const programs = new Map<string, StreamEvent[]>();
  const accounts = new Map<string, StreamEvent[]>();
  for (const orderId of ids.orders ?? []) orders.set(orderId, await bound.orders.read({ orderId }));
  for (const sensorId of ids.sensors ?? []) sensors.set(sensorId, await bound.sensors.read({ sensorId }));
  for (const purchaseId of ids.purchases ?? []) purchases.set(purchaseId, await bound.purchases.read({ purchaseId }));
  for (const programId of ids.programs ?? []) programs.set(programId, await bound.loyalty.read({ programId }));
  for (const accountId of ids.accounts ?? []) accounts.set(accountId, await bound.accounts.read({ accountId }));
  const all = [...orders.values(), ...sensors.values(), ...purchases.values(), ...programs.values(), ...accounts.values()];
  const customers = purchases.size + programs.size > 0 ? [...CUSTOMERS] : [];
  return { orders, sensors, purchases, programs, accounts, customers, events: all.reduce((sum, list) => sum + list.length, 0) };
}

/** Every event feeding customer rows (purchase and loyalty instances). */
export function customerEvents(truth: Truth): StreamEvent[] {
  return [...truth.purchases.values(), ...truth.programs.values()].flat();
}

/** `<stream>#<stream id>@<version>`: an event's identity across streams. */
export function eventKey(event: { readonly streamName: string; readonly streamId: string; readonly version: number }): string {
  return `${event.streamName}#${event.streamId}@${event.version}`;
}

/**
 * The ids outbox messages carry, one per event a projection with an outbox applies (`<stream>#<id>#<version>`);
 * none for the events in `skipped` (by `eventKey`), which were left out with `skipParked`.
 */
export function expectedOutboxIds(truth: Truth, skipped: ReadonlySet<string> = new Set()): Set<string> {
  const ids = new Set<string>();
  for (const event of [...[...truth.orders.values()].flat(), ...customerEvents(truth)])
    if (!skipped.has(eventKey(event))) ids.add(`${event.streamName}#${event.streamId}#${event.version}`);
  return ids;
}

/** Result of comparing every projected row with its fold. */
export interface RowCheck {
  rows: number;
  /** Of `rows`: multi-source (customer) rows. */
  multiSourceRows: number;
  /** Of `rows`: removed rows, checked hidden from `get` and present as tombstones with `includeRemoved`. */
  removedRows: number;
  diverged: string[];
}

/** A row without its timestamps, as JSON with sorted fields (or `undefined` for no row). */
export function canonical(row: object | undefined): string | undefined {
  if (row === undefined) return undefined;
  const { createdAt: _c, updatedAt: _u, ...rest } = row as Record<string, unknown>;
  return JSON.stringify(Object.fromEntries(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b))));
}

/**
 * Reads every row strongly consistent (through a clean client's models) and compares it with its fold,
 * leaving out the events in `skipped` (by `eventKey`): skipped on purpose, they move a row's checkpoint only.
 */
export async function checkRows(bound: Bound, truth: Truth, skipped: ReadonlySet<string> = new Set()): Promise<RowCheck> {
  const diverged: string[] = [];
  const kept = <E extends StreamEvent>(events: ReadonlyArray<E>) => events.filter((event) => !skipped.has(eventKey(event)));
  let rows = 0;
  for (const [orderId, events] of truth.orders) {
    rows++;
    const row = canonical(await bound.summaries.get({ orderId }, { consistent: true }));
    const expected: OrderSummary | undefined =
      events.length === 0 ? undefined : { ...foldSummary(orderId, kept(events)), version: events[events.length - 1]?.version ?? 0 };
    if (row !== canonical(expected)) diverged.push(`${bound.summaries.name} ${orderId}: got ${row}, fold ${canonical(expected)}`);
  }
  for (const [sensorId, events] of truth.sensors) {
    const { rows: expected } = foldZones(sensorId, events);
    for (const zone of ZONES) {
      rows++;
      const row = canonical(await bound.zones.get({ sensorId, zone }, { consistent: true, includeHidden: true }));
      const wanted = canonical(expected.get(zone));
      if (row !== wanted) diverged.push(`${bound.zones.name} ${sensorId}/${zone}: got ${row}, fold ${wanted}`);
    }
  }
  let multiSourceRows = 0;
  const fed = kept(customerEvents(truth));
  for (const customer of truth.customers) {
    rows++;
    multiSourceRows++;
    const row = canonical(await bound.customers.get({ customer }, { consistent: true }));
    const wanted = canonical(foldCustomer(customer, fed));
    if (row !== wanted) diverged.push(`${bound.customers.name} ${customer}: got ${row}, fold ${wanted}`);
  }
  let removedRows = 0;
  for (const [accountId, events] of truth.accounts) {
    rows++;
    const fold = foldAccount(accountId, events);
    const live = canonical(await bound.accountRows.get({ accountId }, { consistent: true }));
    const stored = canonical(await bound.accountRows.get({ accountId }, { consistent: true, includeRemoved: true }));
    if (live !== canonical(fold.row)) diverged.push(`${bound.accountRows.name} ${accountId}: get gave ${live}, fold ${canonical(fold.row)}`);
    if (fold.tombstone !== undefined) {
      removedRows++;
      if (stored !== canonical(fold.tombstone))
        diverged.push(`${bound.accountRows.name} ${accountId}: includeRemoved gave ${stored}, tombstone ${canonical(fold.tombstone)}`);
    } else if (stored !== live) {
      diverged.push(`${bound.accountRows.name} ${accountId}: includeRemoved gave ${stored} for a live row ${live}`);
    }
  }
  return { rows, multiSourceRows, removedRows, diverged };
}

export { ZoneNotPlaced, foldAccount, foldCustomer };

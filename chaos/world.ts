/**
 * The chaos suite's world: one events table carrying an Order stream (one summary row per order) and a
 * Sensor stream (one row per sensor and zone, keyed by an event field), a views table for both read
 * models, a seeded workload of multi-event appends, and the truth every projected row is checked against:
 * its fold from the store.
 */
import { CreateTableCommand, DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { eventsTableDefinition, readModelTableDefinition, type NewEventOf, type StreamEvent } from '../lib';
import { foldSummary, orderSummaries, orderSummaryProjection, type OrderSummary } from '../__tests__/support/order-projection';
import { orderEventSchemas, orderStream, type OrderEvent } from '../__tests__/support/orders';
import { sensorStream, zoneProjection, zoneReadings, ZoneNotPlaced } from '../__tests__/support/sensors';
import { randomInt } from './random';

export type ClientConfig = DynamoDBClientConfig & { endpoint: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } };

export type OrderStream = ReturnType<typeof orderStream>;
export type SensorStream = ReturnType<typeof sensorStream>;
export type SensorEvent = StreamEvent & ({ type: 'SensorPlaced'; data: { zone: string } } | { type: 'SensorReading'; data: { zone: string; celsius: number } } | { type: 'SensorNote'; data: { text: string } });

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
}

export async function createTables(client: DynamoDBClient, prefix = 'chaos'): Promise<Tables> {
  const eventsTable = uniqueTableName(`${prefix}-events`);
  const created = await client.send(new CreateTableCommand(eventsTableDefinition(eventsTable)));
  const streamArn = created.TableDescription?.LatestStreamArn;
  if (streamArn === undefined) throw new Error('the events table has no stream');
  const viewsTable = uniqueTableName(`${prefix}-views`);
  await client.send(new CreateTableCommand(readModelTableDefinition(viewsTable, [orderSummaries(client, viewsTable), zoneReadings(client, viewsTable)])));
  return { eventsTable, viewsTable, streamArn };
}

/** Streams and projections over `client` (a faulty one for the projections, a clean one for the truth). */
export function bind(client: DynamoDBClient, tables: Tables, modelSuffix: string) {
  const orders = orderStream(client, tables.eventsTable);
  const sensors = sensorStream(client, tables.eventsTable);
  const summaries = orderSummaries(client, tables.viewsTable, `OrderSummary${modelSuffix}`);
  const zones = zoneReadings(client, tables.viewsTable, `ZoneReading${modelSuffix}`);
  return {
    orders,
    sensors,
    summaries,
    zones,
    projections: { summaries: orderSummaryProjection(orders, summaries), zones: zoneProjection(sensors, zones) },
  };
}

export type Bound = ReturnType<typeof bind>;

export const ZONES = ['north', 'south', 'east'] as const;

/** Appends one random chunk (1–4 events) to an order; resolves the events written. */
export async function appendOrderChunk(orders: OrderStream, orderId: string, version: number, random: () => number, idempotencyKey?: string): Promise<number> {
  if (version === 0) {
    const result = await orders.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: `c-${orderId}` } }], { expectedVersion: 0, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) });
    return result.version;
  }
  const events = Array.from({ length: randomInt(random, 1, 4) }, (_, i): NewEventOf<typeof orderEventSchemas> =>
    random() < 0.08 ? { type: 'OrderShipped', data: {} } : { type: 'ItemAdded', data: { sku: `s${version}-${i}`, price: randomInt(random, 1, 50) } },
  );
  const result = await orders.append({ orderId }, events, { expectedVersion: version, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) });
  return result.version;
}

/** Appends one random chunk to a sensor: placements, readings (some before their zone is placed) and notes. */
export async function appendSensorChunk(sensors: SensorStream, sensorId: string, version: number, random: () => number, idempotencyKey?: string): Promise<number> {
  const events = Array.from({ length: randomInt(random, 1, 4) }, () => {
    const zone = ZONES[randomInt(random, 0, ZONES.length - 1)] as string;
    const roll = random();
    if (roll < 0.2) return { type: 'SensorPlaced' as const, data: { zone } };
    if (roll < 0.3) return { type: 'SensorNote' as const, data: { text: `note ${version}` } };
    return { type: 'SensorReading' as const, data: { zone, celsius: randomInt(random, -10, 45) } };
  });
  const result = await sensors.append({ sensorId }, events, { expectedVersion: version, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) });
  return result.version;
}

/** A seeded workload: every order and sensor gets `chunks` appends, from concurrent writers. */
export async function writeWorkload(bound: Bound, orderIds: ReadonlyArray<string>, sensorIds: ReadonlyArray<string>, chunks: number, random: () => number): Promise<void> {
  await Promise.all([
    ...orderIds.map(async (orderId) => {
      let version = 0;
      for (let chunk = 0; chunk < chunks; chunk++) version = await appendOrderChunk(bound.orders, orderId, version, random);
    }),
    ...sensorIds.map(async (sensorId) => {
      let version = 0;
      for (let chunk = 0; chunk < chunks; chunk++) version = await appendSensorChunk(bound.sensors, sensorId, version, random);
    }),
  ]);
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
  readonly events: number;
}

export async function readTruth(bound: Bound, orderIds: ReadonlyArray<string>, sensorIds: ReadonlyArray<string>): Promise<Truth> {
  const orders = new Map<string, OrderEvent[]>();
  const sensors = new Map<string, SensorEvent[]>();
  for (const orderId of orderIds) orders.set(orderId, await bound.orders.read({ orderId }));
  for (const sensorId of sensorIds) sensors.set(sensorId, (await bound.sensors.read({ sensorId })) as SensorEvent[]);
  const events = [...orders.values(), ...sensors.values()].reduce((sum, list) => sum + list.length, 0);
  return { orders, sensors, events };
}

/** Result of comparing every projected row with its fold. */
export interface RowCheck {
  rows: number;
  diverged: string[];
}

/** A row without its timestamps, as JSON with sorted fields (or `undefined` for no row). */
function canonical(row: object | undefined): string | undefined {
  if (row === undefined) return undefined;
  const { createdAt: _c, updatedAt: _u, ...rest } = row as Record<string, unknown>;
  return JSON.stringify(Object.fromEntries(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b))));
}

/** Reads every row strongly consistent (through a clean client's models) and compares it with its fold. */
export async function checkRows(bound: Bound, truth: Truth): Promise<RowCheck> {
  const diverged: string[] = [];
  let rows = 0;
  for (const [orderId, events] of truth.orders) {
    rows++;
    const row = canonical(await bound.summaries.get({ orderId }, { consistent: true }));
    const expected: OrderSummary | undefined = events.length === 0 ? undefined : foldSummary(orderId, events);
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
  return { rows, diverged };
}

export { ZoneNotPlaced };

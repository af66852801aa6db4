import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, Projection, ReadModel, type EventOf } from 'dynafold';
import { LocalKeyProvider, SubjectKeys, type PersonalDataOptions, type SubjectKeysOptions } from 'dynafold/erasure';
import type { CompressionOptions, EventVersionsOf } from 'dynafold/types';

/**
 * The customer stream of the erasure tests: a customer's own personal data (subject: the stream id), a
 * field whose value is an object, one event about another person (subject: a field of the data) and one
 * event with no personal data.
 */
export const customerEventSchemas = {
  Registered: z.object({ name: z.string(), email: z.string(), country: z.string() }),
  AddressChanged: z.object({ address: z.object({ street: z.string(), city: z.string() }).nullable() }),
  Referred: z.object({ friendId: z.string(), friendName: z.string(), note: z.string().optional() }),
  OrderPlaced: z.object({ orderId: z.string(), total: z.number() }),
};

export type CustomerEvent = EventOf<typeof customerEventSchemas>;

/** What each personal field reads as once its subject is forgotten. */
export const Erased = { name: '[erased]', email: '[erased]', address: null, friendName: '[erased]' } as const;

/** A local key provider with a key of its own, for one test file. */
export function testKeyProvider(): LocalKeyProvider {
  return new LocalKeyProvider({ key: randomBytes(32) });
}

/** The subject keys of a test, on `table`. */
export function subjectKeys(
  client: DynamoDBClient,
  table: string,
  provider: LocalKeyProvider,
  options: Partial<SubjectKeysOptions> = {},
): SubjectKeys {
  return new SubjectKeys({ client, table, provider, ...options });
}

/** Options of a test's customer stream: compression, and older versions of its types with their replacements. */
export interface CustomerStreamOptions {
  readonly compression?: CompressionOptions;
  readonly versions?: EventVersionsOf<typeof customerEventSchemas>;
  readonly older?: PersonalDataOptions<typeof customerEventSchemas, 'customerId'>['older'];
}

/** A `Customer` stream on `table` whose personal data is sealed with `keys`. */
export function customerStream(client: DynamoDBClient, table: string, keys: SubjectKeys, options: CustomerStreamOptions = {}) {
  return new EventStream({
    client,
    table,
    name: 'Customer',
    streamId: ['customerId'],
    events: customerEventSchemas,
    ...(options.compression === undefined ? {} : { compression: options.compression }),
    ...(options.versions === undefined ? {} : { versions: options.versions }),
    personalData: {
      keys,
      events: {
        Registered: { subject: { streamId: 'customerId' }, fields: { name: Erased.name, email: Erased.email } },
        AddressChanged: { subject: { streamId: 'customerId' }, fields: { address: Erased.address } },
        Referred: { subject: { data: 'friendId' }, fields: { friendName: Erased.friendName } },
      },
      ...(options.older === undefined ? {} : { older: options.older }),
    },
  });
}

/** A customer's folded state: what a row or a load holds of them. */
export interface CustomerState {
  readonly name: string | undefined;
  readonly email: string | undefined;
  readonly city: string | null | undefined;
  readonly friends: ReadonlyArray<string>;
  readonly orders: number;
}

export const noCustomer: CustomerState = { name: undefined, email: undefined, city: undefined, friends: [], orders: 0 };

export function evolveCustomer(state: CustomerState, event: CustomerEvent): CustomerState {
  switch (event.type) {
    case 'Registered':
      return { ...state, name: event.data.name, email: event.data.email };
    case 'AddressChanged':
      return { ...state, city: event.data.address?.city ?? null };
    case 'Referred':
      return { ...state, friends: [...state.friends, event.data.friendName] };
    case 'OrderPlaced':
      return { ...state, orders: state.orders + 1 };
  }
}

/** A customer's profile row: what a projection folds of their events, personal data included. */
export const customerProfileSchema = z.object({
  customerId: z.string(),
  name: z.string().optional(),
  email: z.string().optional(),
  city: z.string().nullable().optional(),
  friends: z.array(z.string()),
  orders: z.number(),
  version: z.number(),
});
export type CustomerProfile = z.output<typeof customerProfileSchema>;

export function customerProfiles(client: DynamoDBClient, table: string) {
  return new ReadModel({
    client,
    table,
    name: 'CustomerProfile',
    schema: customerProfileSchema,
    key: { pk: { field: 'pk', composite: ['customerId'] }, sk: { field: 'sk', composite: [] } },
  });
}

/** The profile a customer's events fold into (what a row must equal). */
export function profileOf(customerId: string, events: ReadonlyArray<CustomerEvent>): CustomerProfile {
  const state = events.reduce(evolveCustomer, noCustomer);
  return {
    customerId,
    ...(state.name === undefined ? {} : { name: state.name }),
    ...(state.email === undefined ? {} : { email: state.email }),
    ...(state.city === undefined ? {} : { city: state.city }),
    friends: [...state.friends],
    orders: state.orders,
    version: events.at(-1)?.version ?? 0,
  };
}

/** The profile projection: one row per customer, with an outbox of each event when `outbox` is given. */
export function customerProfileProjection(
  stream: ReturnType<typeof customerStream>,
  readModel: ReturnType<typeof customerProfiles>,
  options: { outbox?: string } = {},
) {
  return new Projection({
    stream,
    readModel,
    key: (streamId) => ({ customerId: streamId.customerId }),
    initial: (streamId): CustomerProfile => ({ customerId: streamId.customerId, friends: [], orders: 0, version: 0 }),
    evolve: (row, event) => {
      const state = evolveCustomer({ name: row.name, email: row.email, city: row.city, friends: row.friends, orders: row.orders }, event);
      return {
        customerId: row.customerId,
        ...(state.name === undefined ? {} : { name: state.name }),
        ...(state.email === undefined ? {} : { email: state.email }),
        ...(state.city === undefined ? {} : { city: state.city }),
        friends: [...state.friends],
        orders: state.orders,
        version: row.version,
      };
    },
    checkpoint: 'version',
    ...(options.outbox === undefined ? {} : { outbox: { table: options.outbox } }),
  });
}

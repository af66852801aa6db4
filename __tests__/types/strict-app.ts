/**
 * A strict app's use of dynafold, compiled by strict-app.unit.test.ts with `exactOptionalPropertyTypes`,
 * `noUncheckedIndexedAccess`, `verbatimModuleSyntax` and `skipLibCheck: false` (see tsconfig.json here):
 * the README's patterns, and `undefined` passed to optional options, as such an app writes them.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { z } from 'zod';
import { EventStream, Projection, ReadModel, decoder, lambdaHandler } from 'dynafold';
import { processBatch, unmarshallImage } from 'dynafold/lambda';
import { OutboxRelay } from 'dynafold/outbox';
import { ChangeFeedConsumer, DynamoCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { expectedVersionOf } from 'dynafold/fastify';

const maybe = <T>(value: T): T | undefined => (Date.now() > 0 ? value : undefined);

const client = new DynamoDBClient({});
export const OrderEvents = new EventStream({
  client,
  table: 'events',
  name: 'Order',
  streamId: ['orderId'],
  events: { OrderPlaced: z.object({ customer: z.string() }), OrderShipped: z.object({}) },
  compression: maybe(false),
});

export const OrderSummaries = new ReadModel({
  client,
  table: 'views',
  name: 'OrderSummary',
  schema: z.object({ orderId: z.string(), customer: z.string(), version: z.number() }),
  key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
});

export const OrderSummaryProjection = new Projection({
  stream: OrderEvents,
  readModel: OrderSummaries,
  key: (streamId) => ({ orderId: streamId.orderId }),
  initial: (streamId) => ({ orderId: streamId.orderId, customer: '', version: 0 }),
  evolve: (state, event) => (event.type === 'OrderPlaced' ? { ...state, customer: event.data.customer } : state),
  checkpoint: 'version',
  name: maybe('summaries'),
  concurrency: maybe(4),
  logger: maybe(console),
});

// The README's service pattern: the If-Match header, when there is one, is the expected version.
export async function addOrder(request: { headers: Record<string, string | undefined> }, orderId: string) {
  const result = await OrderEvents.append(orderId, [{ type: 'OrderPlaced', data: { customer: 'ada' } }], {
    expectedVersion: expectedVersionOf(request.headers['if-match']),
    idempotencyKey: request.headers['idempotency-key'],
  });
  const row = await OrderSummaries.get({ orderId }, { consistent: maybe(true) });
  return { version: result.version, row };
}

// A handler of its own: @types/aws-lambda's fields are optional, and so is the image.
const decode = decoder({ Order: OrderEvents });
export function types(event: DynamoDBStreamEvent): string[] {
  const types: string[] = [];
  for (const record of event.Records) {
    const decoded = decode(record.dynamodb?.NewImage);
    if (decoded?.stream === 'Order') types.push(decoded.event.type);
    void unmarshallImage(record.dynamodb?.Keys);
  }
  return types;
}

export const handler = lambdaHandler({
  projections: { summaries: OrderSummaryProjection },
  logger: maybe(false),
  onDecodeFailure: maybe('skip'),
  timeReserveMs: maybe(500),
  onBatch: maybe(async () => undefined),
});

export async function batch(event: DynamoDBStreamEvent) {
  return processBatch(event.Records, {
    projections: { summaries: OrderSummaryProjection },
    source: maybe('lambda'),
    signal: maybe(new AbortController().signal),
  });
}

export const relay = new OutboxRelay({ client, table: 'outbox', publish: async () => undefined, concurrency: maybe(2), logger: maybe(console) });

export async function feed(streamArn: string) {
  const consumer = new ChangeFeedConsumer({
    streamsClient: new DynamoDBStreamsClient({}),
    streamArn,
    checkpoints: new DynamoCheckpointStore({ client, table: 'checkpoints', finishedTtlMs: maybe(72 * 3_600_000) }),
    consumer: maybe('orders'),
    pollIntervalMs: maybe(100),
    signal: maybe(new AbortController().signal),
  });
  await runChangeFeed(consumer, { projections: { summaries: OrderSummaryProjection }, stopWhenCaughtUp: maybe(true), logger: maybe(undefined) });
}

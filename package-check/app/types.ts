/**
 * Type-checked in a fresh app against the packed package, with the app's own zod, AWS SDK, Fastify and
 * `@types/aws-lambda`, under nodenext (ESM in the ESM app, CommonJS in the others), bundler and node10 resolution, with the
 * settings of a strict app (`strict`, `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`,
 * `verbatimModuleSyntax` under bundler and in the ESM app) and `skipLibCheck: false`, by TypeScript 5.9
 * and 7 (node10 by 5.9 alone, and without `exactOptionalPropertyTypes`, for `cdk.ts`'s sake). It
 * compiles only if the published declarations resolve and agree with them, and with the README's patterns.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent, DynamoDBStreamHandler, KinesisStreamHandler } from 'aws-lambda';
import Fastify from 'fastify';
import { EventStream, Projection, ReadModel, decoder, type EventOf } from 'dynafold';
import { kinesisHandler, lambdaHandler, type LambdaStreamEvent, type PartialBatchResponse } from 'dynafold/lambda';
import { OutboxRelay, type OutboxMessage } from 'dynafold/outbox';
import { LocalKeyProvider, SubjectKeys } from 'dynafold/erasure';
import type { RetryOptions, WaitForOptions } from 'dynafold/types';
import { etagOf, expectedVersionOf } from 'dynafold/fastify';
import { ChangeFeedConsumer, MemoryCheckpointStore, type ChangeFeedBatch } from 'dynafold/feed';
import { startDynamoLocal, type DynamoLocal } from 'dynafold/local';
import { DynamoTimers, Reaction, command, schedule, type FiredTimer } from 'dynafold/reactions';
import {
  DYNAMODB_ENDPOINTS,
  deciderSpec,
  localClientConfig,
  projectionSpec,
  startTestDynamo,
  TestClock,
  type DeciderOutcome,
  type ProjectionSpecResult,
} from 'dynafold/testing';
import { z } from 'zod';

const client = new DynamoDBClient({});
const events = {
  OrderPlaced: z.object({ customer: z.string() }),
  ItemAdded: z.object({ sku: z.string(), price: z.number() }),
};
type OrderEvent = EventOf<typeof events>;

const orders = new EventStream({ client, table: 'events', name: 'Order', streamId: ['orderId'], events });
export const summaries = new ReadModel({
  client,
  table: 'views',
  name: 'OrderSummary',
  schema: z.object({ orderId: z.string(), customer: z.string(), total: z.number(), version: z.number() }),
  key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
});
export const projection = new Projection({
  stream: orders,
  readModel: summaries,
  key: (streamId) => ({ orderId: streamId.orderId }),
  initial: (streamId) => ({ orderId: streamId.orderId, customer: '', total: 0, version: 0 }),
  evolve: (row, event: OrderEvent) =>
    event.type === 'OrderPlaced' ? { ...row, customer: event.data.customer.trim() } : { ...row, total: row.total + event.data.price },
  checkpoint: 'version',
});

// The handler fits @types/aws-lambda's handler type, and the package's event and answer types agree with its.
export const handler: DynamoDBStreamHandler = lambdaHandler({ projections: [projection] });
export const kinesis: KinesisStreamHandler = kinesisHandler({ projections: [projection] });
export const asTheirs = (event: LambdaStreamEvent): DynamoDBStreamEvent => event;
export const asOurs = (event: DynamoDBStreamEvent): LambdaStreamEvent => event;
export const answer = (response: PartialBatchResponse): { batchItemFailures: Array<{ itemIdentifier: string }> } => response;

export async function append(orderId: string): Promise<number> {
  const appended = await orders.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: 'c' } }]);
  return appended.version;
}

// The README's service pattern: the If-Match header (or none) as the append's expected version.
export const service = Fastify();
service.post<{ Params: { orderId: string } }>('/orders/:orderId/items', async (request, reply) => {
  const result = await orders.append({ orderId: request.params.orderId }, [{ type: 'ItemAdded', data: { sku: 's', price: 1 } }], {
    expectedVersion: expectedVersionOf(request.headers['if-match']),
  });
  return reply.header('etag', etagOf(result.version)).send({ version: result.version });
});

// The README's decoding of stream records, on @types/aws-lambda's records (whose `dynamodb` and images are optional).
const decode = decoder({ Order: orders });
export const orderEventTypes = (event: DynamoDBStreamEvent): string[] =>
  event.Records.flatMap((record) => {
    const decoded = decode(record.dynamodb?.NewImage);
    return decoded?.stream === 'Order' ? [decoded.event.type] : [];
  });

export const feed = (streamArn: string, streamsClient: ConstructorParameters<typeof ChangeFeedConsumer>[0]['streamsClient']) =>
  new ChangeFeedConsumer({ streamsClient, streamArn, consumer: 'app', checkpoints: new MemoryCheckpointStore() });
export const firstRecords = (batch: ChangeFeedBatch): number => batch.records.length;

// The outbox's relay and the option parts that `dynafold/types` names resolve as the root's do.
export const relay = (publish: (message: OutboxMessage) => Promise<void>) => new OutboxRelay({ client, table: 'outbox', publish });
export const patient: RetryOptions = { attempts: 5, maxElapsedMs: 2_000 };
export const waitForSummary = (options: WaitForOptions) => projection.waitFor({ orderId: 'o-1' }, { ...options, version: 1 });
export const local: () => Promise<DynamoLocal> = () => startDynamoLocal();
// Personal data's keys, from their own subpath.
export const subjectKeys = new SubjectKeys({ client, table: 'subject-keys', provider: new LocalKeyProvider({ key: new Uint8Array(32) }) });

// The test kit's specs take their types from the projection and the stream.
export const localClient = (): DynamoDBClient => new DynamoDBClient(localClientConfig());
// A jest global setup of one's own: one DynamoDB Local per worker.
export const perWorker = (globalConfig: { maxWorkers: number }): Promise<() => Promise<void>> =>
  startTestDynamo({ instances: globalConfig.maxWorkers });
export const endpointsVariable: string = DYNAMODB_ENDPOINTS;
export const projectionTest = (): Promise<ProjectionSpecResult> =>
  projectionSpec(() => projection)
    .given([{ streamId: { orderId: 'o-1' }, events: [{ type: 'OrderPlaced', data: { customer: 'ada' } }] }])
    .thenRows([{ key: { orderId: 'o-1' }, row: { orderId: 'o-1', customer: 'ada', total: 0, version: 1 } }]);
export const commandTest = (): Promise<DeciderOutcome<number, OrderEvent>> =>
  deciderSpec(orders)
    .given([{ type: 'OrderPlaced', data: { customer: 'ada' } }])
    .when({ initial: 0, evolve: (count: number) => count + 1, decide: () => [{ type: 'ItemAdded', data: { sku: 's', price: 1 } }] })
    .thenEvents([{ type: 'ItemAdded', data: { sku: 's', price: 1 } }]);

// A reaction, from its own subpath: each order placed counts in the customer's tally (a command on another
// stream) and schedules a reminder a day later, on timers a test's clock moves.
const tally = { initial: 0, evolve: (count: number) => count + 1, decide: () => [{ type: 'ItemAdded' as const, data: { sku: 'tally', price: 0 } }] };
export const timers = new DynamoTimers({ client, table: 'reactions', clock: new TestClock() });
export const reminders = new Reaction({
  name: 'reminders',
  streams: [orders],
  client,
  table: 'reactions',
  timers,
  react: (event) =>
    event.type === 'OrderPlaced'
      ? [command(orders, { orderId: `tally-${event.data.customer}` }, tally), schedule('remind', Date.parse(event.timestamp) + 86_400_000)]
      : undefined,
  onTimer: (timer: FiredTimer) => command(orders, { orderId: `reminded-${timer.name}` }, tally),
});

/**
 * Type-checked in a fresh app against the packed package, with the app's own zod, AWS SDK and
 * `@types/aws-lambda`, under nodenext (as ESM and as CommonJS), bundler and node10 resolution, with
 * `skipLibCheck: false`. It compiles only if the published declarations resolve and agree with them.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { App, Stack } from 'aws-cdk-lib';
import * as lambdaCdk from 'aws-cdk-lib/aws-lambda';
import type { DynamoDBStreamEvent, DynamoDBStreamHandler, KinesisStreamHandler } from 'aws-lambda';
import {
  EventStream,
  Projection,
  ReadModel,
  kinesisHandler,
  lambdaHandler,
  type EventOf,
  type LambdaStreamEvent,
  type PartialBatchResponse,
} from 'dynafold';
import { EventsTable, Projector, ReadModelTable } from 'dynafold/cdk';
import { ChangeFeedConsumer, MemoryCheckpointStore, type ChangeFeedBatch } from 'dynafold/feed';
import { startDynamoLocal, type DynamoLocal } from 'dynafold/local';
import {
  DYNAMODB_ENDPOINTS,
  deciderSpec,
  localClientConfig,
  projectionSpec,
  startTestDynamo,
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
const summaries = new ReadModel({
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
export const handler: DynamoDBStreamHandler = lambdaHandler({ projections: { summaries: projection } });
export const kinesis: KinesisStreamHandler = kinesisHandler({ projections: { summaries: projection } });
export const asTheirs = (event: LambdaStreamEvent): DynamoDBStreamEvent => event;
export const asOurs = (event: DynamoDBStreamEvent): LambdaStreamEvent => event;
export const answer = (response: PartialBatchResponse): { batchItemFailures: Array<{ itemIdentifier: string }> } => response;

export async function append(orderId: string): Promise<number> {
  const appended = await orders.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: 'c' } }]);
  return appended.version;
}

export const feed = (streamArn: string, streamsClient: ConstructorParameters<typeof ChangeFeedConsumer>[0]['streamsClient']) =>
  new ChangeFeedConsumer({ streamsClient, streamArn, consumer: 'app', checkpoints: new MemoryCheckpointStore() });
export const firstRecords = (batch: ChangeFeedBatch): number => batch.records.length;
export const local: () => Promise<DynamoLocal> = () => startDynamoLocal();

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

export function infrastructure(): Stack {
  const stack = new Stack(new App(), 'App');
  const fn = new lambdaCdk.Function(stack, 'Fn', {
    runtime: lambdaCdk.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambdaCdk.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] })'),
  });
  const events = new EventsTable(stack, 'Events');
  const views = new ReadModelTable(stack, 'Views', { readModels: [summaries] });
  new Projector(stack, 'Summaries', { function: fn, eventsTable: events.table, streams: ['Order'], readModelTables: [views.table] });
  return stack;
}

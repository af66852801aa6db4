import { CreateTableCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { EventStore, EventType, eventAlreadyExistsErrorCode, type EventDetail } from '@castore/core';
import { DynamoDBSingleTableEventStorageAdapter, ImageParser } from '@castore/event-storage-adapter-dynamodb';
import { uniqueName } from '../../__tests__/support/dynamo';
import { ViewRows, isConditionFailure } from '../baselines/view-rows';
import { clients, type Endpoint } from '../support/local';
import { evolveSummary, initialSummary, newEvents, orderTables, type Summary } from '../support/orders';
import type { DynamoDBRecord } from 'aws-lambda';
import type { BatchResponse, Peer } from './peer';
import { countWrong } from './verify';

type OrderPlaced = EventDetail<'OrderPlaced', { customer: string }>;
type ItemAdded = EventDetail<'ItemAdded', { sku: string; price: number }>;
type OrderDetail = OrderPlaced | ItemAdded;

/** The table its README defines: `aggregateId`/`version` keys and the `initialEvents` index, with a stream for projections. */
function castoreTable(name: string) {
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [
      { AttributeName: 'aggregateId', AttributeType: 'S' as const },
      { AttributeName: 'version', AttributeType: 'N' as const },
      { AttributeName: 'eventStoreId', AttributeType: 'S' as const },
      { AttributeName: 'timestamp', AttributeType: 'S' as const },
    ],
    KeySchema: [
      { AttributeName: 'aggregateId', KeyType: 'HASH' as const },
      { AttributeName: 'version', KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: 'initialEvents',
        KeySchema: [
          { AttributeName: 'eventStoreId', KeyType: 'HASH' as const },
          { AttributeName: 'timestamp', KeyType: 'RANGE' as const },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' as const },
      },
    ],
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' as const },
  };
}

/** The order summary as Castore's reducer (an aggregate carries `aggregateId` and `version`). */
function reducer(aggregate: (Summary & { aggregateId: string }) | undefined, event: OrderDetail): Summary & { aggregateId: string } {
  const state = aggregate ?? { ...initialSummary(event.aggregateId), aggregateId: event.aggregateId };
  return { ...evolveSummary(state, { type: event.type, data: event.payload, version: event.version }), aggregateId: event.aggregateId };
}

const detail = (orderId: string, version: number, event: ReturnType<typeof newEvents>[number]): OrderDetail =>
  ({ aggregateId: orderId, version, type: event.type, payload: event.data }) as OrderDetail;

/**
 * Castore 2: an `EventStore` on `DynamoDBSingleTableEventStorageAdapter`. One event is `pushEvent` (a
 * PutItem conditioned on its version being free); several are `EventStore.pushEventGroup` (one
 * TransactWriteItems). No snapshots (its docs: not implemented). No read models either: the projection is
 * what its docs describe for DynamoDB streams, the `ImageParser` turning each record into a notification
 * message and a state-carrying worker (`getAggregate` at the event's version) writing the row; the version
 * condition on that write is ours, so a late message cannot overwrite a newer row.
 */
export async function castorePeer(endpoint: Endpoint, prefix: string): Promise<Peer> {
  const { client, documents, destroy } = clients(endpoint);
  const table = uniqueName(`bench-${prefix}-castore`);
  const created = await client.send(new CreateTableCommand(castoreTable(table)));
  const { views } = await orderTables(client, `${prefix}-castore-rows`);
  const store = new EventStore({
    eventStoreId: 'ORDERS',
    eventTypes: [
      new EventType<'OrderPlaced', { customer: string }>({ type: 'OrderPlaced' }),
      new EventType<'ItemAdded', { sku: string; price: number }>({ type: 'ItemAdded' }),
    ],
    reducer,
    eventStorageAdapter: new DynamoDBSingleTableEventStorageAdapter({ tableName: table, dynamoDBClient: client }),
  });
  const parser = new ImageParser({ sourceEventStores: [store] });
  const push = async (orderId: string, expectedVersion: number, count: number) => {
    const events = newEvents(expectedVersion + 1, count).map((e, i) => detail(orderId, expectedVersion + 1 + i, e));
    const [first, ...rest] = events.map((e) => store.groupEvent(e));
    if (first === undefined) return;
    if (rest.length === 0) await store.pushEvent(events[0] as OrderDetail);
    else await EventStore.pushEventGroup(first, ...(rest as [typeof first, ...(typeof first)[]]));
  };
  /** The state-carrying worker: the aggregate at the message's version, written unless a newer row is there. */
  const handle = async (rows: ViewRows, record: DynamoDBRecord): Promise<void> => {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || image === undefined) return;
    const message = parser.parseImage(image as Record<string, AttributeValue>);
    const { aggregate } = await store.getAggregate(message.event.aggregateId, { maxVersion: message.event.version });
    if (aggregate === undefined) return;
    const { aggregateId: _, ...state } = aggregate;
    try {
      await documents.send(
        new PutCommand({
          TableName: rows.table,
          Item: rows.item(state),
          ConditionExpression: 'attribute_not_exists(version) OR version < :v',
          ExpressionAttributeValues: { ':v': state.version },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error; // a newer row is there already
    }
  };
  return {
    name: 'Castore',
    client,
    destroy,
    streamArn: created.TableDescription?.LatestStreamArn ?? '',
    append: push,
    command: async (orderId) => {
      const { aggregate } = await store.getAggregate(orderId);
      await push(orderId, aggregate?.version ?? 0, 1);
    },
    appendContended: async (orderId) => {
      for (let conflicts = 0; ; conflicts++) {
        // As its commands do: the aggregate, then the next version. (`getEvents` with `reverse` and `limit: 1`
        // would read the whole stream one item a Query: its adapter follows LastEvaluatedKey past the limit.)
        const { aggregate } = await store.getAggregate(orderId);
        try {
          await push(orderId, aggregate?.version ?? 0, 1);
          return conflicts;
        } catch (error) {
          if ((error as { code?: string }).code !== eventAlreadyExistsErrorCode) throw error;
        }
      }
    },
    load: async (orderId) => {
      const { aggregate } = await store.getAggregate(orderId);
      if (aggregate === undefined) return initialSummary(orderId);
      const { aggregateId: _, ...state } = aggregate;
      return state;
    },
    loadWithSnapshot: undefined,
    prepareSnapshot: async () => undefined,
    projector: async (run) => {
      const rows = new ViewRows(documents, views, `Castore${run}`);
      return {
        projectsTo: 'row',
        project: async (batch): Promise<BatchResponse> => {
          const failed = await Promise.all(
            batch.map((record) =>
              handle(rows, record).then(
                () => false,
                () => true,
              ),
            ),
          );
          const first = failed.indexOf(true);
          // Lambda retries from the first failure it is told of: report that one and every one after it.
          return { batchItemFailures: first < 0 ? [] : batch.slice(first).map((r) => ({ itemIdentifier: r.dynamodb?.SequenceNumber ?? '' })) };
        },
        wrong: (expected) => countWrong(expected, (orderId) => rows.get(orderId)),
      };
    },
  };
}

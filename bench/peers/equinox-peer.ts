import { CreateTableCommand, DynamoDB } from '@aws-sdk/client-dynamodb';
import { CachingStrategy, Codec, Decider, LoadOption, MemoryCache, StreamId, type ICachingStrategy } from '@equinox-js/core';
import { AccessStrategy, DynamoStoreCategory, DynamoStoreClient, DynamoStoreContext, QueryOptions, TipOptions } from '@equinox-js/dynamo-store';
import { AppendsEpoch, AppendsEpochId, AppendsPartitionId, DynamoStoreIngester, type DynamoStoreIndexer } from '@equinox-js/dynamo-store-indexer';
import type { DynamoDBRecord } from 'aws-lambda';
import { uniqueName } from '../../__tests__/support/dynamo';
import { evolveSummary, initialSummary, newEvents, type Summary } from '../support/orders';
import type { Endpoint } from '../support/local';
import type { BatchResponse, Peer } from './peer';

type Event =
  | { type: 'OrderPlaced'; data: { customer: string } }
  | { type: 'ItemAdded'; data: { sku: string; price: number } }
  | { type: 'Snapshotted'; data: Summary };

const CATEGORY = 'Order';

/** The key schema of its tests and of propulsion's DynamoStore: `p` (stream) and `i` (batch index). */
function equinoxTable(name: string, stream: boolean) {
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [
      { AttributeName: 'p', AttributeType: 'S' as const },
      { AttributeName: 'i', AttributeType: 'N' as const },
    ],
    KeySchema: [
      { AttributeName: 'p', KeyType: 'HASH' as const },
      { AttributeName: 'i', KeyType: 'RANGE' as const },
    ],
    ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' as const } } : {}),
  };
}

/**
 * Equinox folds events without their versions or stream: the summary counts them (a snapshot carries the
 * count) and leaves `orderId` empty.
 */
function fold(state: Summary, events: Event[]): Summary {
  return events.reduce<Summary>(
    (s, e) => (e.type === 'Snapshotted' ? e.data : evolveSummary(s, { type: e.type, data: e.data, version: s.version + 1 })),
    state,
  );
}

/** Order ids hold `-`, which separates the category in a stream name. */
const streamIdOf = (orderId: string) => orderId.replace(/-/g, '.');

/**
 * How far the index covers each stream from version 0 without a hole: what `dynamo-store-source` would
 * deliver. A stream whose first indexed span starts past 0 (equinox takes it as the stream's start) covers 0.
 */
async function indexedVersions(context: DynamoStoreContext): Promise<Map<string, number>> {
  const reader = AppendsEpoch.Reader.Config.create(context);
  const spans = new Map<string, Array<{ from: number; to: number }>>();
  for (let epoch = AppendsEpochId.initial; ; epoch = AppendsEpochId.next(epoch)) {
    const [, , state] = await reader.read(AppendsPartitionId.wellKnownId, epoch, 0n);
    for (const [, changes] of state.changes) {
      for (const span of changes) spans.set(span.p, [...(spans.get(span.p) ?? []), { from: span.i, to: span.i + span.c.length }]);
    }
    if (!state.closed) break;
  }
  const covered = new Map<string, number>();
  for (const [stream, list] of spans) {
    let head = 0;
    for (const span of list.sort((a, b) => a.from - b.from)) if (span.from <= head) head = Math.max(head, span.to);
    covered.set(stream, head);
  }
  return covered;
}

/** The indexer Lambda's `handle(service, records)`, loaded at run time: the package ships TypeScript sources only. */
type IndexerHandle = (service: DynamoStoreIndexer, records: DynamoDBRecord[]) => Promise<void>;
async function indexerHandle(): Promise<IndexerHandle> {
  const path = '@equinox-js/dynamo-store-indexer-lambda/src/Handler.ts';
  return ((await import(path)) as { handle: IndexerHandle }).handle;
}

/**
 * equinox-js DynamoStore: a `Decider` per stream on a `DynamoStoreCategory` with a `MemoryCache`. Appends
 * are `transact` on the cached state (`AnyCachedValue`, `AssumeEmpty` for a new stream): the write is
 * conditioned on the cached position, and a conflict reloads from the store and decides again. Loads are
 * uncached `query`, `Unoptimized` or from the `Snapshot` unfold its `AccessStrategy.Snapshot` keeps in the
 * tip. Its projection is the indexer Lambda (stream records → `$AppendsEpoch` index) followed by
 * `@equinox-js/dynamo-store-source`, which cannot be installed: its `@equinox-js/propeller` 1.2.0 is not on
 * the npm registry. So only the indexer runs here, and there is no read-model row to check.
 */
export async function equinoxPeer(endpoint: Endpoint, prefix: string): Promise<Peer> {
  // Its store takes the aggregated `DynamoDB` client; the same settings as the others' (see support/local).
  const client = new DynamoDB({ ...endpoint, maxAttempts: 10 });
  const table = uniqueName(`bench-${prefix}-equinox`);
  const created = await client.send(new CreateTableCommand(equinoxTable(table, true)));
  const storeClient = new DynamoStoreClient(client);
  const context = new DynamoStoreContext({ client: storeClient, tableName: table, tip: TipOptions.create({}), query: QueryOptions.create({}) });
  const handle = await indexerHandle();
  const codec = Codec.compress(Codec.json<Event>());
  const initial = initialSummary('');
  const snapshot = AccessStrategy.Snapshot<Event, Summary>(
    (e) => e.type === 'Snapshotted',
    (s) => ({ type: 'Snapshotted', data: s }),
  );
  const category = (caching: ICachingStrategy | undefined, access: AccessStrategy<Event, Summary>) => {
    const created = DynamoStoreCategory.create(context, CATEGORY, codec, fold, initial, caching, access);
    return (orderId: string) => Decider.forStream(created, StreamId.create(streamIdOf(orderId)), undefined);
  };
  const cached = category(CachingStrategy.Cache(new MemoryCache()), snapshot);
  const unoptimized = category(undefined, AccessStrategy.Unoptimized());
  const fromSnapshot = category(undefined, snapshot);
  const decide = (count: number) => (state: Summary) => newEvents(state.version + 1, count) as Event[];
  return {
    name: 'equinox-js',
    client,
    destroy: () => client.destroy(),
    streamArn: created.TableDescription?.LatestStreamArn ?? '',
    append: async (orderId, expectedVersion, count) => {
      await cached(orderId).transact(decide(count), expectedVersion === 0 ? LoadOption.AssumeEmpty : LoadOption.AnyCachedValue, 1_000);
    },
    // A command loads the tip (through the snapshot strategy, uncached) and decides on it.
    command: async (orderId) => {
      await fromSnapshot(orderId).transact(decide(1), LoadOption.RequireLoad, 1_000);
    },
    appendContended: async (orderId) => {
      // Each decision after the first follows a conflict (the sync failed and the state was reloaded).
      let decisions = 0;
      await cached(orderId).transact(
        (state) => {
          decisions++;
          return decide(1)(state);
        },
        LoadOption.AnyCachedValue,
        1_000,
      );
      return decisions - 1;
    },
    load: (orderId) => unoptimized(orderId).query((s) => s),
    loadWithSnapshot: (orderId) => fromSnapshot(orderId).query((s) => s),
    prepareSnapshot: async () => undefined, // every transact through `snapshot` rewrote the tip's unfold
    projector: async (run) => {
      // A fresh index table per run, configured as its indexer Lambda configures it.
      const index = uniqueName(`bench-${prefix}-equinox-index-${run}`);
      await client.send(new CreateTableCommand(equinoxTable(index, false)));
      const indexContext = new DynamoStoreContext({
        client: storeClient,
        tableName: index,
        tip: TipOptions.create({ maxBytes: 48 * 1024 }),
        query: QueryOptions.create({}),
      });
      const ingester = new DynamoStoreIngester(indexContext);
      return {
        projectsTo: 'index',
        project: async (batch): Promise<BatchResponse> => {
          try {
            await handle(ingester.service, batch);
            return { batchItemFailures: [] };
          } catch {
            // The indexer fails the whole batch (an out-of-order span is an "Invalid gap"): Lambda retries it all.
            return { batchItemFailures: batch.map((r) => ({ itemIdentifier: r.dynamodb?.SequenceNumber ?? '' })) };
          }
        },
        wrong: async (expected) => {
          const covered = await indexedVersions(indexContext);
          return expected.filter((e) => covered.get(`${CATEGORY}-${streamIdOf(e.orderId)}`) !== e.version).length;
        },
      };
    },
  };
}

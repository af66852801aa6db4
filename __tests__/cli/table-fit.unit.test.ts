import type { TableDescription } from '@aws-sdk/client-dynamodb';
import { eventsTableDefinition } from 'dynafold';
import { outboxTableDefinition } from 'dynafold/outbox';
import { tableFit } from '../../lib/cli/commands/table-fit';

/** The table CreateTable made from `definition`, as DescribeTable shows it. */
const describedAs = (definition: ReturnType<typeof eventsTableDefinition>, changes: Partial<TableDescription> = {}): TableDescription => ({
  TableName: definition.TableName,
  KeySchema: definition.KeySchema,
  AttributeDefinitions: definition.AttributeDefinitions,
  ...(definition.StreamSpecification === undefined ? {} : { StreamSpecification: definition.StreamSpecification }),
  ...changes,
});

const events = eventsTableDefinition('events');

test('a table made from the definition fits as it is', () => {
  expect(tableFit(events, describedAs(events), 'ttl', { AttributeName: 'ttl', TimeToLiveStatus: 'ENABLED' })).toEqual({
    enableStream: undefined,
    enableTtl: undefined,
    problems: [],
  });
});

test('a missing stream and TTL are turned on; a stream of both images serves a reader of new ones', () => {
  expect(tableFit(events, describedAs(events, { StreamSpecification: { StreamEnabled: false } }), 'ttl', { TimeToLiveStatus: 'DISABLED' })).toEqual({
    enableStream: 'NEW_AND_OLD_IMAGES',
    enableTtl: 'ttl',
    problems: [],
  });
  const outbox = outboxTableDefinition('outbox');
  const bothImages = describedAs(outbox, { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } });
  expect(tableFit(outbox, bothImages, undefined, undefined).problems).toEqual([]);
});

test('what only another table fixes is a problem: another stream view, TTL attribute, or key types', () => {
  const keysOnly = describedAs(events, { StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' } });
  expect(tableFit(events, keysOnly, 'ttl', { AttributeName: 'expires', TimeToLiveStatus: 'ENABLED' }).problems).toEqual([
    'its stream is KEYS_ONLY where dynafold reads NEW_AND_OLD_IMAGES: disable the stream (its consumers start over on a new one) and run tables create again',
    "its items expire on expires where dynafold's expire on ttl (a table has one TTL attribute)",
  ]);
  const numbers = describedAs(events, {
    AttributeDefinitions: events.AttributeDefinitions?.map((attribute) => ({ ...attribute, AttributeType: 'N' })),
  });
  expect(tableFit(events, numbers, undefined, undefined)).toEqual({
    enableStream: undefined,
    enableTtl: undefined,
    problems: [
      'its key is pk (HASH, N), sk (RANGE, N) where dynafold needs pk (HASH, S), sk (RANGE, S): name another table in the config, or delete this one and run tables create again',
    ],
  });
});

test('a read-model index the table lacks, or keys otherwise, is a problem', () => {
  const definition = {
    ...events,
    GlobalSecondaryIndexes: [
      { IndexName: 'byCustomer', KeySchema: [{ AttributeName: 'gsi1pk', KeyType: 'HASH' as const }], Projection: { ProjectionType: 'ALL' as const } },
    ],
  };
  expect(tableFit(definition, describedAs(events), undefined, undefined).problems).toEqual([
    'it has no index byCustomer (gsi1pk (HASH)): add it with UpdateTable',
  ]);
  const otherKey = describedAs(events, {
    GlobalSecondaryIndexes: [{ IndexName: 'byCustomer', KeySchema: [{ AttributeName: 'customer', KeyType: 'HASH' }] }],
  });
  expect(tableFit(definition, otherKey, undefined, undefined).problems).toEqual([
    'its index byCustomer is keyed customer (HASH) where dynafold needs gsi1pk (HASH)',
  ]);
});

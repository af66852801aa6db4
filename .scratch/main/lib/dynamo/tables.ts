import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * An on-demand table keyed by `pk` + `sk` strings (events, outbox and checkpoint tables alike), with a
 * stream of the given view where its changes are consumed.
 */
export function keyedTableDefinition(tableName: string, stream?: 'NEW_IMAGE' | 'NEW_AND_OLD_IMAGES'): CreateTableCommandInput {
  return {
    TableName: tableName,
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
    ...(stream === undefined ? {} : { StreamSpecification: { StreamEnabled: true, StreamViewType: stream } }),
  };
}

/**
 * A DynamoCheckpointStore's table: keyed like the others, with finished shards' checkpoints expiring on
 * `ttlAttribute`. One definition for the store, the command line and the CDK constructs, which must not
 * depend on the feed module (it loads the Streams client).
 */
export const CheckpointTable = {
  definition: (tableName: string): CreateTableCommandInput => keyedTableDefinition(tableName),
  ttlAttribute: 'ttl',
} as const;

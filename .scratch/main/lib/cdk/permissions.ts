/**
 * The DynamoDB actions each way of running dynafold sends, in one place: the constructs grant exactly
 * these. Transactions need no action of their own; DynamoDB checks each of their writes' actions.
 */
export const Actions = {
  /** A projection applying events (lambdaHandler, kinesisHandler, runChangeFeed): gap reads of the stream. */
  projectorOnEvents: ['dynamodb:Query'],
  /** ...its rows: a batch read, then one write per row (a Put; an Update when a failure is counted or a row parked). */
  projectorOnRows: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  /** ...its outbox: messages written in the row's transaction. */
  projectorOnOutbox: ['dynamodb:PutItem'],
  /** The outbox relay: a row's messages read in order, each deleted once published. */
  relayOnOutbox: ['dynamodb:Query', 'dynamodb:DeleteItem'],
  /** The change feed reading a table's stream. */
  feedOnStream: ['dynamodb:DescribeStream', 'dynamodb:GetShardIterator', 'dynamodb:GetRecords'],
  /** DynamoCheckpointStore: checkpoints, the lease, clearing a consumer. */
  feedOnCheckpoints: [
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:Query',
    'dynamodb:BatchWriteItem',
  ],
} as const;

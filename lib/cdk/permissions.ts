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
  /** A reaction or workflow (lambdaHandler, runChangeFeed): gap reads, its targets' and instances' loads, and their appends. */
  reactionOnEvents: ['dynamodb:Query', 'dynamodb:PutItem'],
  /** ...its reactions table: progress rows as a projection's rows are read and written, and its timers' items. */
  reactionOnProgress: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  /** The timer sweep (timerSweepHandler) and the Scheduler's target (schedulerTimerHandler): due timers read from the due-time index... */
  timersOnDueIndex: ['dynamodb:Query'],
  /** ...each timer read, and its firing's record written (a Put or an Update of its item) with its owner's effects. */
  timersOnTable: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  /** SchedulerTimers: one-time schedules created, set again and deleted in their group. */
  schedulesInGroup: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
} as const;

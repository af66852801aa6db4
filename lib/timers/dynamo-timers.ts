import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClient, getItem, pages, withSignal } from '../dynamo';
import { ConfigurationError } from '../errors';
import { requireInteger, requireTableName } from '../util';
import { systemClock, type Clock } from './clock';
import { TimerDefaults } from './defaults';
import { dueSortKey, dueTimerOf, timerItemKey, TimerLayout, type DueTimer, type ScheduledTimer, type TimerKey } from './timer-layout';

/** Options of {@link DynamoTimers}. */
export interface DynamoTimersOptions {
  readonly client: DynamoDBClient;
  /** The table of the timers' items: a reactions table (see `reactionsTableDefinition`), which has their due-time index. */
  readonly table: string;
  /** What time it is: a sweep fires the timers due by then. @defaultValue the system clock */
  readonly clock?: Clock | undefined;
  /** Partitions of the due-time index the timers spread over; keep it once timers are scheduled. @defaultValue 4 ({@link TimerDefaults}) */
  readonly shards?: number | undefined;
}

/**
 * Durable timers on DynamoDB alone: a timer is an item, written in the same transaction as the effects of
 * the event that scheduled it (a reaction's, a workflow's), and found by a sweep once due through a sparse
 * index of due times. A sweep (`sweepTimers`, run by the change feed's process with `runTimerSweeps` or by a
 * scheduled Lambda function with `timerSweepHandler`) fires each due timer in one transaction with its
 * owner's effects, conditioned on the timer being still scheduled: a timer fires at least once, never before
 * its time (by `clock`), and its firing is recorded exactly once. Works wherever DynamoDB does, DynamoDB
 * Local and tests included; a timer fires on the first sweep after it is due. The EventBridge Scheduler
 * adapter (`dynafold/scheduler`) wakes the firing of each timer at its time instead, on the same items.
 *
 * @example
 * ```ts
 * const timers = new DynamoTimers({ client, table: 'reactions' })
 * const checkout = new Workflow({ ...options, timers })
 * const stop = new AbortController()
 * void runTimerSweeps({ timers, owners: [checkout], signal: stop.signal })
 * ```
 */
export class DynamoTimers {
  readonly table: string;
  readonly clock: Clock;
  readonly shards: number;
  /** @internal the document client the timers' reads and firings go through. */
  readonly documents: DynamoDBDocumentClient;

  constructor(options: DynamoTimersOptions) {
    const where = 'DynamoTimers';
    this.table = requireTableName('table', options.table, where);
    this.shards = requireInteger('shards', options.shards ?? TimerDefaults.shards, 1, 100, where);
    const clock = options.clock ?? systemClock;
    if (typeof clock?.now !== 'function') throw new ConfigurationError(`${where}: expected \`clock\` to have a \`now()\` method.`);
    this.clock = clock;
    this.documents = documentClient(options.client);
  }

  /**
   * Told that timers were scheduled (their items written): an adapter that wakes each timer at its time
   * arranges it here. Here, nothing: the sweep finds them.
   */
  async scheduled(_timers: ReadonlyArray<ScheduledTimer>, _signal?: AbortSignal): Promise<void> {}

  /** Told that timers were cancelled or fired (their items say so): an adapter drops their wake-ups here. Here, nothing. */
  async dropped(_timers: ReadonlyArray<TimerKey>, _signal?: AbortSignal): Promise<void> {}

  /**
   * The timers due by `now` (default: the clock's), shard after shard, each in order of its due time. The
   * index is eventually consistent: a timer just fired may still be listed (its firing then finds it fired
   * and does nothing), one just scheduled may not be yet (the next sweep finds it).
   */
  async *due(options: { readonly now?: number | undefined; readonly signal?: AbortSignal | undefined } = {}): AsyncGenerator<DueTimer> {
    const now = options.now ?? this.clock.now();
    const documents = withSignal(this.documents, options.signal);
    for (let shard = 0; shard < this.shards; shard++) {
      const query = (start: Record<string, unknown> | undefined) =>
        documents.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: TimerLayout.index,
            KeyConditionExpression: '#shard = :shard AND #due <= :due',
            ExpressionAttributeNames: { '#shard': TimerLayout.dueShard, '#due': TimerLayout.due },
            // Everything due at `now` sorts before `now`'s key followed by a character above every id's.
            ExpressionAttributeValues: { ':shard': `timers#${shard}`, ':due': `${dueSortKey(now)}~` },
            Limit: TimerDefaults.pageSize,
            ...(start === undefined ? {} : { ExclusiveStartKey: start }),
          }),
        );
      for await (const items of pages('Query', this.table, query)) {
        for (const item of items) {
          const timer = dueTimerOf(item);
          if (timer !== undefined && timer.at <= now) yield timer;
        }
      }
    }
  }

  /** A timer's item as it is now (strongly consistent), or `undefined`. */
  async item(key: TimerKey, signal?: AbortSignal): Promise<Readonly<Record<string, unknown>> | undefined> {
    return getItem(withSignal(this.documents, signal), this.table, timerItemKey(key));
  }
}

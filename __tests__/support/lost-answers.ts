import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { seededRandom } from '../../chaos/random';

/** The DynamoDB operations that write, by the names a client's commands have (low-level and document client). */
const WRITES: ReadonlyMap<string, WriteOperation> = new Map([
  ['PutItemCommand', 'PutItem'],
  ['PutCommand', 'PutItem'],
  ['UpdateItemCommand', 'UpdateItem'],
  ['UpdateCommand', 'UpdateItem'],
  ['DeleteItemCommand', 'DeleteItem'],
  ['DeleteCommand', 'DeleteItem'],
  ['TransactWriteItemsCommand', 'TransactWriteItems'],
  ['TransactWriteCommand', 'TransactWriteItems'],
  ['BatchWriteItemCommand', 'BatchWriteItem'],
  ['BatchWriteCommand', 'BatchWriteItem'],
]);

export type WriteOperation = 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'TransactWriteItems' | 'BatchWriteItem';

/** A write whose answer was lost after DynamoDB applied it. */
export interface LostAnswer {
  readonly operation: WriteOperation;
  /** The table it wrote (the first item's, for a transaction or a batch). */
  readonly table: string | undefined;
}

/** Which writes lose their answer, and what happens next. */
export interface LoseChoice {
  /** How many writes lose their answer. @defaultValue 1 */
  readonly count?: number;
  /** Only this operation. @defaultValue any write */
  readonly operation?: WriteOperation;
  /** Only writes whose input this accepts. */
  readonly where?: (input: Readonly<Record<string, unknown>>) => boolean;
  /** Runs after the write was applied and before the SDK sends it again: other traffic in between. */
  readonly meanwhile?: () => Promise<unknown>;
  /** The SDK's next tries of the same request are throttled this many times (before they are sent): it may give up. @defaultValue 0 */
  readonly throttleRetries?: number;
  /** Once the SDK gave up on the write, this many tries of the reads that follow (GetItem) are throttled. @defaultValue 0 */
  readonly failingReads?: number;
}

/** Which writes lose their answer. */
export interface LostAnswers {
  /** Loses the answer of the next writes that `choice` picks (see {@link LoseChoice}): one by default. */
  loseNext(choice?: LoseChoice): void;
  /** Loses the answer of this share (0..1) of every write from now on, drawn from `seed`'s sequence. */
  loseAtRate(rate: number, seed: number): void;
  /** Stops losing answers and forgets those lost so far. */
  stop(): void;
  /** Every answer lost so far. */
  readonly lost: ReadonlyArray<LostAnswer>;
}

/**
 * Loses the answers of writes sent through `client` (and the document clients made from it, which share
 * its middleware stack) AFTER DynamoDB applied them: the request reaches DynamoDB Local, then the attempt
 * fails with a `TimeoutError`, as when a connection drops before the answer arrives. The middleware sits
 * inside the SDK's retry loop, so the SDK sends the same request again, as it does in production.
 */
export function loseAnswers(client: DynamoDBClient): LostAnswers {
  const lost: LostAnswer[] = [];
  let pending: LoseChoice[] = [];
  // Requests whose next tries are throttled, by their input (the SDK sends the same input again).
  const throttled = new Map<unknown, number>();
  // Read tries still to throttle, and the reads they wait for: the write's, once its throttled tries are spent.
  const reads = { failing: 0, armed: new Map<unknown, number>() };
  let random: (() => number) | undefined;
  let rate = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = WRITES.get(context.commandName ?? '');
      const isRead = context.commandName === 'GetItemCommand' || context.commandName === 'GetCommand';
      if (isRead && reads.failing > 0) {
        reads.failing--;
        throw throttledError();
      }
      if (operation === undefined) return next(args);
      const input = ((args as unknown as { input?: Record<string, unknown> }).input ?? {}) as Record<string, unknown>;
      const throttles = throttled.get(input) ?? 0;
      if (throttles > 0) {
        throttled.set(input, throttles - 1);
        if (throttles === 1) {
          reads.failing += reads.armed.get(input) ?? 0;
          reads.armed.delete(input);
        }
        throw throttledError();
      }
      const chosen = pending.findIndex((entry) => (entry.operation ?? operation) === operation && (entry.where?.(input) ?? true));
      const drawn = chosen === -1 && random !== undefined && random() < rate;
      if (chosen === -1 && !drawn) return next(args);
      const choice = pending[chosen];
      if (chosen !== -1) pending = pending.filter((_entry, index) => index !== chosen);
      await next(args);
      await choice?.meanwhile?.();
      if ((choice?.throttleRetries ?? 0) > 0) throttled.set(input, choice?.throttleRetries ?? 0);
      if ((choice?.failingReads ?? 0) > 0) reads.armed.set(input, choice?.failingReads ?? 0);
      lost.push({ operation, table: tableOf(input) });
      throw Object.assign(new Error('Answer lost after the write was applied (injected)'), { name: 'TimeoutError', $metadata: {} });
    },
    // Inside the SDK's retry loop (its retry middleware is finalizeRequest/high): the SDK retries the write.
    { step: 'finalizeRequest', priority: 'low', name: `loseAnswers-${Math.random().toString(36).slice(2)}` },
  );
  return {
    loseNext(choice = {}) {
      for (let n = 0; n < (choice.count ?? 1); n++) pending.push(choice);
    },
    loseAtRate(share, seed) {
      rate = share;
      random = seededRandom(seed);
    },
    stop() {
      pending = [];
      random = undefined;
      lost.length = 0;
      throttled.clear();
      reads.failing = 0;
      reads.armed.clear();
    },
    lost,
  };
}

function throttledError(): Error {
  return Object.assign(new Error('Throttled (injected)'), {
    name: 'ProvisionedThroughputExceededException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

function tableOf(input: Readonly<Record<string, unknown>>): string | undefined {
  if (typeof input['TableName'] === 'string') return input['TableName'];
  const transact = input['TransactItems'];
  if (Array.isArray(transact)) {
    const first = transact[0] as Record<string, { TableName?: string } | undefined> | undefined;
    return Object.values(first ?? {}).find((action) => action?.TableName !== undefined)?.TableName;
  }
  const batch = input['RequestItems'];
  return batch !== null && typeof batch === 'object' ? Object.keys(batch)[0] : undefined;
}

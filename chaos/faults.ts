/**
 * Fault injection on a REAL SDK client (DynamoDB or DynamoDB Streams), through a middleware placed inside
 * the SDK's retry loop: every attempt of a request is faulted on its own, so with `maxAttempts` > 1 some
 * faults are absorbed by the SDK and the rest surface to dynafold, whose own handling is exercised too.
 *
 * Every fault is raised BEFORE the request is sent, so it is always faithful: nothing happened on the
 * server. The one exception is `lostResponse`, which sends a write and then loses the answer (a timeout
 * after the server applied it), on every write of every client: the SDK then sends it again, or gives up.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { seededRandom } from './random';

/** The faults a client can be given. */
export type FaultKind =
  /** ThrottlingException / ProvisionedThroughputExceededException (DynamoDB), LimitExceededException / ThrottlingException (Streams). */
  | 'throttle'
  /** InternalServerError, HTTP 500. */
  | 'internal'
  /** A request timeout (`TimeoutError`) before the request left. */
  | 'timeout'
  /** A TransactionCanceledException with a TransactionConflict reason, on TransactWriteItems only. */
  | 'conflict'
  /**
   * Someone else won the row: a ConditionalCheckFailedException on PutItem to a read-model table, or a
   * TransactionCanceledException with ConditionalCheckFailed on a row's transaction (row and outbox messages).
   */
  | 'conditional'
  /** A write is sent and applied, then its response is lost (a TimeoutError): every write (Put, Update, Delete, transaction, batch). */
  | 'lostResponse';

export const ALL_FAULTS: ReadonlyArray<FaultKind> = ['throttle', 'internal', 'timeout', 'conflict', 'conditional', 'lostResponse'];

/** Settings of {@link injectFaults}. */
export interface FaultOptions {
  /** Seed of the injector's own PRNG, so a schedule's faults are reproducible. */
  readonly seed: number;
  /** Share of eligible calls (0..1) that fail. */
  readonly rate: number;
  /** @defaultValue {@link ALL_FAULTS} */
  readonly kinds?: ReadonlyArray<FaultKind>;
  /** Read-model tables: only their row writes (PutItem, or a transaction whose first item puts a row) get `conditional` faults. */
  readonly readModelTables?: ReadonlyArray<string>;
  /** Only these commands (e.g. `GetRecordsCommand`) are faulted. @defaultValue every command */
  readonly commands?: ReadonlyArray<string>;
}

/** A write whose response was lost after DynamoDB applied it. */
export interface LostResponse {
  /** The table it wrote (the first item's, for a transaction), or '' for a batch. */
  readonly table: string;
  readonly command: string;
}

/** What an injector did; `enabled` switches it off and on. */
export interface FaultLog {
  enabled: boolean;
  /** Faults injected, by `kind:ErrorName`. */
  readonly injected: Map<string, number>;
  readonly lostResponses: LostResponse[];
  /** Calls seen while enabled. */
  calls: number;
  total(): number;
}

/** The part of a client's middleware stack used here, typed loosely: it serves both clients' commands. */
interface MiddlewareStackLike {
  add(
    middleware: (
      next: (args: unknown) => Promise<unknown>,
      context: { commandName?: string; clientName?: string },
    ) => (args: unknown) => Promise<unknown>,
    options: Record<string, unknown>,
  ): void;
}

const PUT_COMMANDS = new Set(['PutItemCommand', 'PutCommand']);
const TRANSACT_COMMANDS = new Set(['TransactWriteItemsCommand', 'TransactWriteCommand']);
/** Every command that writes, by the names a client's commands have (low-level and document client). */
const WRITE_COMMANDS = new Set([
  ...PUT_COMMANDS,
  ...TRANSACT_COMMANDS,
  'UpdateItemCommand',
  'UpdateCommand',
  'DeleteItemCommand',
  'DeleteCommand',
  'BatchWriteItemCommand',
  'BatchWriteCommand',
]);

/** An SDK error shaped like the service's (name, `$fault`, `$metadata`), which the SDK and dynafold classify by. */
export function sdkError(name: string, status: number, extra: Record<string, unknown> = {}): Error {
  const error = new Error(`${name} (injected)`);
  return Object.assign(error, { name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status, attempts: 1 }, ...extra });
}

/**
 * Adds a seeded fault-injecting middleware to `client` (a DynamoDBClient or DynamoDBStreamsClient, and
 * every document client made from it). The client stays real: unfaulted requests reach the service.
 */
export function injectFaults(client: DynamoDBClient | DynamoDBStreamsClient, options: FaultOptions): FaultLog {
  const random = seededRandom(options.seed);
  const kinds = options.kinds ?? ALL_FAULTS;
  const readModels = new Set(options.readModelTables ?? []);
  const commands = options.commands === undefined ? undefined : new Set(options.commands);
  const log: FaultLog = {
    enabled: true,
    injected: new Map(),
    lostResponses: [],
    calls: 0,
    total: () => [...log.injected.values()].reduce((sum, n) => sum + n, 0),
  };
  const count = (kind: FaultKind, name: string) => log.injected.set(`${kind}:${name}`, (log.injected.get(`${kind}:${name}`) ?? 0) + 1);
  // Writes applied whose answer was lost, by their input (the SDK sends every attempt with the same one).
  // DynamoDB answers a repeat of such a write as it stands after it: a Put's condition fails on its own item
  // (returned), a transaction's repeat (its ClientRequestToken) succeeds. So a repeat gets no made-up
  // rival ('conditional', with no item) and no made-up 'conflict': those could not happen to it.
  const landed = new WeakSet<object>();

  (client.middlewareStack as unknown as MiddlewareStackLike).add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      if (!log.enabled || (commands !== undefined && !commands.has(command))) return next(args);
      log.calls++;
      if (random() >= options.rate) return next(args);
      const input = (args as { input?: Record<string, unknown> }).input ?? {};
      const streams = (context.clientName ?? '').includes('Streams');
      const firstPut =
        TRANSACT_COMMANDS.has(command) && Array.isArray(input['TransactItems'])
          ? (input['TransactItems'][0] as { Put?: { TableName?: unknown; Item?: Record<string, unknown> } } | undefined)?.Put
          : undefined;
      const table =
        typeof input['TableName'] === 'string' ? input['TableName'] : typeof firstPut?.TableName === 'string' ? firstPut.TableName : undefined;
      const rowTransaction = firstPut !== undefined && table !== undefined && readModels.has(table);
      // Only a conditioned write can lose a race (a backfill's unconditioned progress Put cannot).
      const conditioned = typeof input['ConditionExpression'] === 'string' || rowTransaction;
      const toReadModel = ((PUT_COMMANDS.has(command) && table !== undefined && readModels.has(table)) || rowTransaction) && conditioned;
      const repeat = landed.has(input);
      const eligible = kinds.filter((kind) => {
        if (kind === 'conflict') return TRANSACT_COMMANDS.has(command) && !repeat;
        if (kind === 'conditional') return toReadModel && !repeat;
        if (kind === 'lostResponse') return WRITE_COMMANDS.has(command);
        return true;
      });
      const kind = eligible[Math.floor(random() * eligible.length)];
      switch (kind) {
        case undefined:
        default:
          return next(args);
        case 'throttle': {
          const names = streams
            ? ['LimitExceededException', 'ThrottlingException']
            : ['ProvisionedThroughputExceededException', 'ThrottlingException'];
          const name = names[Math.floor(random() * names.length)] as string;
          count(kind, name);
          throw sdkError(name, 400);
        }
        case 'internal':
          count(kind, 'InternalServerError');
          throw sdkError('InternalServerError', 500);
        case 'timeout':
          count(kind, 'TimeoutError');
          throw Object.assign(new Error('Request timed out (injected)'), { name: 'TimeoutError', $metadata: {} });
        case 'conflict': {
          const items = Array.isArray(input['TransactItems']) ? input['TransactItems'].length : 1;
          const loser = Math.floor(random() * items);
          const reasons = Array.from({ length: items }, (_, index) =>
            index === loser ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' },
          );
          count(kind, 'TransactionCanceledException');
          throw sdkError('TransactionCanceledException', 400, {
            message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
            CancellationReasons: reasons,
          });
        }
        case 'conditional': {
          if (rowTransaction) {
            const items = (input['TransactItems'] as unknown[]).length;
            const reasons = Array.from({ length: items }, (_, index) =>
              index === 0 ? { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' } : { Code: 'None' },
            );
            count(kind, 'TransactionCanceledException');
            throw sdkError('TransactionCanceledException', 400, {
              message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
              CancellationReasons: reasons,
            });
          }
          count(kind, 'ConditionalCheckFailedException');
          throw sdkError('ConditionalCheckFailedException', 400, { message: 'The conditional request failed' });
        }
        case 'lostResponse': {
          const answer = await next(args);
          void answer;
          landed.add(input);
          count(kind, `TimeoutError(${command.replace(/Command$/, '')})`);
          log.lostResponses.push({ table: table ?? '', command });
          throw Object.assign(new Error('Response lost after the write (injected)'), { name: 'TimeoutError', $metadata: {} });
        }
      }
    },
    // Inside the SDK's retry loop (retryMiddleware is finalizeRequest/high): each attempt is faulted on its own.
    { step: 'finalizeRequest', priority: 'low', name: `chaosFaults-${options.seed}-${Math.random().toString(36).slice(2)}` },
  );
  return log;
}

/**
 * A retry strategy for chaos clients: the SDK's classification (throttling, transient and server errors
 * are retried) with short fixed delays, so that thousands of faulted schedules still run in minutes.
 */
export function quickRetries(maxAttempts: number, delayMs = 2) {
  interface Token {
    getRetryCount(): number;
    getRetryDelay(): number;
  }
  const token = (count: number): Token => ({ getRetryCount: () => count, getRetryDelay: () => delayMs });
  return {
    mode: 'standard',
    acquireInitialRetryToken: async (_scope: string): Promise<Token> => token(0),
    refreshRetryTokenForRetry: async (previous: Token, info: { errorType: string }): Promise<Token> => {
      const retryable = info.errorType === 'THROTTLING' || info.errorType === 'TRANSIENT' || info.errorType === 'SERVER_ERROR';
      if (!retryable || previous.getRetryCount() + 1 >= maxAttempts) throw new Error('no more retries');
      return token(previous.getRetryCount() + 1);
    },
    recordSuccess: (_token: Token): void => undefined,
  };
}

/** Merges fault counts into `into`. */
export function addCounts(into: Map<string, number>, from: ReadonlyMap<string, number>): void {
  for (const [key, value] of from) into.set(key, (into.get(key) ?? 0) + value);
}

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Requests a client sent, by command name (e.g. `TransactWriteItemsCommand`). */
export interface RequestLog {
  readonly counts: ReadonlyMap<string, number>;
  count(command: string): number;
  /** Requests that failed, by command and error name (`PutItemCommand:ConditionalCheckFailedException`). */
  readonly failures: ReadonlyMap<string, number>;
  reset(): void;
}

/**
 * Counts every request sent through `client` (and through document clients made from it, which share
 * its middleware stack). The client stays real: requests still reach DynamoDB.
 */
export function countRequests(client: DynamoDBClient): RequestLog {
  const counts = new Map<string, number>();
  const failures = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? 'unknown';
      counts.set(name, (counts.get(name) ?? 0) + 1);
      try {
        return await next(args);
      } catch (error) {
        const failure = `${name}:${(error as { name?: unknown } | undefined)?.name ?? 'unknown'}`;
        failures.set(failure, (failures.get(failure) ?? 0) + 1);
        throw error;
      }
    },
    { step: 'initialize', name: `countRequests-${Math.random().toString(36).slice(2)}` },
  );
  return {
    counts,
    count: (command) => counts.get(command) ?? 0,
    failures,
    reset: () => {
      counts.clear();
      failures.clear();
    },
  };
}

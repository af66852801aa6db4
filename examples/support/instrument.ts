/**
 * Middleware on a real DynamoDB client that watches a read-model table: it counts the projection's lost
 * races (a row write whose condition failed because another call wrote the row first) and can make a
 * share of row reads fail, the way a flaky network or a timeout would.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Random } from './random';

export interface RowTraffic {
  /** Row writes refused by their condition: another call got there first, this one re-read and retried. */
  lostRaces: number;
  /** Row reads made to fail. */
  faults: number;
}

/** An error like a dropped connection's; not one the SDK retries, so the row fails and its records are reported. */
export class InjectedFault extends Error {
  override readonly name = 'InjectedFault';
}

interface Input {
  readonly TableName?: string;
  readonly RequestItems?: Readonly<Record<string, unknown>>;
  readonly TransactItems?: ReadonlyArray<
    Readonly<
      Record<string, { readonly TableName?: string } | undefined>
    >
  >;
}

/** Whether a request reads or writes `table`: single-item calls, batch reads and transactions. */
function touches(input: Input, table: string): boolean {
  if (input.TableName === table) return true;
  if (input.RequestItems !== undefined && table in input.RequestItems)
    return true;
  return (input.TransactItems ?? []).some((item) =>
    Object.values(item).some((action) => action?.TableName === table),
  );
}

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand']);
const WRITES = new Set(['PutItemCommand', 'TransactWriteItemsCommand']);
const REFUSED = new Set([
  'ConditionalCheckFailedException',
  'TransactionCanceledException',
]);

export function instrumentRowTable(
  client: DynamoDBClient,
  table: string,
  faults?: { readonly rate: number; readonly random: Random },
): RowTraffic {
  const traffic: RowTraffic = { lostRaces: 0, faults: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!touches(args.input as Input, table)) return next(args);
      const command = context.commandName ?? '';
      if (
        faults !== undefined &&
        READS.has(command) &&
        faults.random.next() < faults.rate
      ) {
        traffic.faults++;
        throw new InjectedFault(
          `injected fault reading rows of ${table}`,
        );
      }
      try {
        return await next(args);
      } catch (error) {
        if (
          WRITES.has(command) &&
          error instanceof Error &&
          REFUSED.has(error.name)
        )
          traffic.lostRaces++;
        throw error;
      }
    },
    { step: 'initialize', name: 'dynafoldExampleRowTraffic' },
  );
  return traffic;
}

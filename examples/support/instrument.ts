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

export function instrumentRowTable(client: DynamoDBClient, table: string, faults?: { readonly rate: number; readonly random: Random }): RowTraffic {
  const traffic: RowTraffic = { lostRaces: 0, faults: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TableName?: string };
      if (input.TableName !== table) return next(args);
      const command = context.commandName ?? '';
      if (faults !== undefined && command.startsWith('GetItem') && faults.random.next() < faults.rate) {
        traffic.faults++;
        throw new InjectedFault(`injected fault reading a row of ${table}`);
      }
      try {
        return await next(args);
      } catch (error) {
        if (command.startsWith('PutItem') && error instanceof Error && error.name === 'ConditionalCheckFailedException') traffic.lostRaces++;
        throw error;
      }
    },
    { step: 'initialize', name: 'dynafoldExampleRowTraffic' },
  );
  return traffic;
}

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Operations whose input takes `ReturnConsumedCapacity`, and whether their units are reads or writes. */
const KINDS: Readonly<Record<string, 'read' | 'write'>> = {
  GetItem: 'read',
  Query: 'read',
  Scan: 'read',
  BatchGetItem: 'read',
  TransactGetItems: 'read',
  PutItem: 'write',
  UpdateItem: 'write',
  DeleteItem: 'write',
  BatchWriteItem: 'write',
  TransactWriteItems: 'write',
};

/** Capacity units a client consumed, summed from the responses' `ConsumedCapacity`, and requests by kind. */
export interface Capacity {
  readUnits: number;
  writeUnits: number;
  readRequests: number;
  writeRequests: number;
  /** While set, requests pass uncounted and ask for no capacity (see `unmetered`). */
  paused: boolean;
  reset(): void;
}

function unitsOf(output: unknown): number {
  const consumed = (output as { ConsumedCapacity?: unknown } | undefined)?.ConsumedCapacity;
  const list = Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed];
  return list.reduce<number>((sum, c) => sum + ((c as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);
}

/**
 * Asks DynamoDB for `ReturnConsumedCapacity: 'TOTAL'` on every request of `client` that takes it (whatever
 * the library sent) and adds up the units of the responses. Middleware on the real client, so a peer
 * library's own requests are counted the same way as dynafold's.
 */
export function capacity(client: DynamoDBClient): Capacity {
  const c: Capacity = {
    readUnits: 0,
    writeUnits: 0,
    readRequests: 0,
    writeRequests: 0,
    paused: false,
    reset: () => {
      c.readUnits = c.writeUnits = c.readRequests = c.writeRequests = 0;
    },
  };
  const id = Math.random().toString(36).slice(2);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const kind = KINDS[(context.commandName ?? '').replace(/Command$/, '')];
      if (kind === undefined || c.paused) return next(args);
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const units = unitsOf(result.output);
      if (kind === 'read') {
        c.readUnits += units;
        c.readRequests++;
      } else {
        c.writeUnits += units;
        c.writeRequests++;
      }
      return result;
    },
    { step: 'initialize', name: `benchCapacity-${id}` },
  );
  return c;
}

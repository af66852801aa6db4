import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';

/** What a client sent, counted per HTTP attempt: requests by operation, items read from responses. */
export interface Meter {
  readonly requests: Map<string, number>;
  /** Items a response carried: `Item`, `Items`/`Count`, `Responses` of BatchGetItem, `Records` of GetRecords. */
  itemsRead: number;
  /** While set, requests pass uncounted (see `unmetered`). */
  paused: boolean;
  total(): number;
  count(operation: string): number;
  reset(): void;
  snapshot(): MeterSnapshot;
}

export interface MeterSnapshot {
  readonly requests: Readonly<Record<string, number>>;
  readonly total: number;
  readonly itemsRead: number;
}

/** How many items one response read. */
export function itemsIn(output: unknown): number {
  if (typeof output !== 'object' || output === null) return 0;
  const o = output as Record<string, unknown>;
  if (typeof o['Count'] === 'number') return o['Count'];
  if (Array.isArray(o['Items'])) return o['Items'].length;
  if (Array.isArray(o['Records'])) return o['Records'].length;
  if (o['Item'] !== undefined && o['Item'] !== null) return 1;
  const responses = o['Responses'];
  if (Array.isArray(responses)) return responses.filter((r) => (r as { Item?: unknown })?.Item !== undefined).length;
  if (typeof responses === 'object' && responses !== null) {
    return Object.values(responses).reduce<number>((sum, items) => sum + (Array.isArray(items) ? items.length : 0), 0);
  }
  return 0;
}

/**
 * Adds counting middleware to a real client (document clients made from it share its stack): requests per
 * attempt that reached DynamoDB, items from the responses returned.
 */
export function meter(client: DynamoDBClient | DynamoDBStreamsClient): Meter {
  const requests = new Map<string, number>();
  const m: Meter = {
    requests,
    itemsRead: 0,
    paused: false,
    total: () => [...requests.values()].reduce((sum, n) => sum + n, 0),
    count: (operation) => requests.get(operation) ?? 0,
    reset: () => {
      requests.clear();
      m.itemsRead = 0;
    },
    snapshot: () => ({ requests: Object.fromEntries(requests), total: m.total(), itemsRead: m.itemsRead }),
  };
  const stack = (client as DynamoDBClient).middlewareStack;
  const id = Math.random().toString(36).slice(2);
  // Below the SDK's retry loop: every attempt that reached DynamoDB is a request.
  stack.add(
    (next, context) => async (args) => {
      if (m.paused) return next(args);
      const operation = (context.commandName ?? 'unknown').replace(/Command$/, '');
      requests.set(operation, (requests.get(operation) ?? 0) + 1);
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: `benchRequests-${id}` },
  );
  // Above it: the response that was finally returned, deserialized.
  stack.add(
    (next) => async (args) => {
      if (m.paused) return next(args);
      const result = await next(args);
      m.itemsRead += itemsIn(result.output);
      return result;
    },
    { step: 'initialize', name: `benchItems-${id}` },
  );
  return m;
}

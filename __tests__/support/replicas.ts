import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** One read a client sent: the request and whether it asked for strong consistency. */
export interface ReadRecord {
  readonly command: string;
  readonly consistent: boolean;
}

/**
 * The reads a client sends, and a switch that makes its eventually consistent answers come as from a
 * replica that is behind. DynamoDB Local is always consistent; the answers stay real, the lag is a
 * fault laid on them.
 */
export interface Replicas {
  /** Every Query and GetItem sent, in order. */
  readonly reads: ReadRecord[];
  /** While set, an eventually consistent Query answers these of its items. */
  lagQuery: ((items: unknown[]) => unknown[]) | undefined;
  /** Takes the middleware off the client. */
  remove(): void;
}

/** Watches `client`'s reads (and those of document clients made from it) with middleware. */
export function watchReplicas(client: DynamoDBClient): Replicas {
  const name = `replicas-${Math.random().toString(36).slice(2)}`;
  const replicas: Replicas = {
    reads: [],
    lagQuery: undefined,
    remove: () => client.middlewareStack.remove(name),
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? 'unknown';
      const eventual = (args.input as { ConsistentRead?: boolean }).ConsistentRead !== true;
      if (command === 'QueryCommand' || command === 'GetItemCommand') replicas.reads.push({ command, consistent: !eventual });
      const result = await next(args);
      const output = result.output as { Items?: unknown[] };
      if (eventual && command === 'QueryCommand' && replicas.lagQuery !== undefined && output.Items !== undefined) {
        output.Items = replicas.lagQuery(output.Items);
      }
      return result;
    },
    { step: 'initialize', name },
  );
  return replicas;
}

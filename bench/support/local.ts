import { DynamoDBClient, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startDynamoLocal, type DynamoLocal } from 'dynafold/local';
import { createTestTable } from '../../__tests__/support/dynamo';
import { meter, type Meter } from './meter';

/** Settings of a client that reaches the benchmark's DynamoDB Local. */
export interface Endpoint {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/** A metered client pair on one endpoint. Every scenario makes its own, so their counts never mix. */
export interface Clients {
  readonly client: DynamoDBClient;
  readonly documents: DynamoDBDocumentClient;
  readonly streams: DynamoDBStreamsClient;
  readonly meter: Meter;
  readonly streamsMeter: Meter;
  readonly destroy: () => void;
}

export async function startLocal(): Promise<DynamoLocal> {
  // A larger heap: the drain scenario keeps 100,000 events (and their stream records) in memory.
  return startDynamoLocal({ heapMb: 3072, jvmArgs: ['-XX:+UseParallelGC'] });
}

export function endpointOf(local: DynamoLocal): Endpoint {
  return { endpoint: local.clientConfig.endpoint, region: local.clientConfig.region, credentials: { ...local.clientConfig.credentials } };
}

export function clients(endpoint: Endpoint): Clients {
  // DynamoDB Local serialises transactions behind a lock; on a loaded machine it answers InternalServerError
  // ("too long waiting for a lock", nothing written) where AWS would not. The SDK retries those; the meter
  // counts each attempt.
  const client = new DynamoDBClient({ ...endpoint, maxAttempts: 10 });
  const streams = new DynamoDBStreamsClient({ ...endpoint, maxAttempts: 3 });
  const m = meter(client);
  const sm = meter(streams);
  return {
    client,
    documents: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    streams,
    meter: m,
    streamsMeter: sm,
    destroy: () => {
      client.destroy();
      streams.destroy();
    },
  };
}

/** Creates a table under a fresh name (the tests' helper); resolves its name and stream ARN. */
export async function createTable(
  client: DynamoDBClient,
  definition: (name: string) => CreateTableCommandInput,
  prefix: string,
): Promise<{ name: string; streamArn: string }> {
  const { name, streamArn } = await createTestTable(client, definition, `bench-${prefix}`);
  return { name, streamArn: streamArn ?? '' };
}

/**
 * A chaos consumer process: runChangeFeed over the events table's stream into both projections, with a
 * DynamoCheckpointStore, on clients that fail a share of their calls. It logs synchronously to OUT_FILE
 * (so a SIGKILL loses nothing written) every event applied, already applied or rejected, and every
 * checkpoint write it starts and finishes. Exits 0 once the stream is disabled and drained.
 *
 * Lines: `A|R|J <projection> <streamId>@<version> <pid>`, `P <pid> <epoch ms> <sequence>` (checkpoint
 * write started), `Q <pid> <epoch ms> <sequence>` (written), `L <pid> <epoch ms> <error name>` (ended),
 * `F <pid> <json>` (faults injected so far, by kind).
 */
import './env';
import { appendFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ChangeFeedConsumer, DynamoCheckpointStore, runChangeFeed, type FeedKey } from '../lib/feed';
import { DynamoLocalDefaults } from '../lib/local';
import { injectFaults, quickRetries, type FaultKind } from './faults';
import { bind } from './world';

function env(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}

const out = env('OUT_FILE');
const write = (line: string) => appendFileSync(out, `${line}\n`);

/** A checkpoint store that logs each checkpoint write it starts and finishes. */
class LoggedCheckpointStore extends DynamoCheckpointStore {
  override async putCheckpoint(key: FeedKey, shardId: string, sequenceNumber: string): Promise<void> {
    write(`P ${process.pid} ${Date.now()} ${sequenceNumber}`);
    await super.putCheckpoint(key, shardId, sequenceNumber);
    write(`Q ${process.pid} ${Date.now()} ${sequenceNumber}`);
  }
}

async function main(): Promise<void> {
  const config = { endpoint: env('DYNAMODB_ENDPOINT'), region: DynamoLocalDefaults.region, credentials: { ...DynamoLocalDefaults.credentials } };
  const rate = Number(env('FAULT_RATE', '0'));
  const seed = Number(env('FAULT_SEED', '1'));
  const kinds = env('FAULT_KINDS', 'throttle,internal,timeout,conditional,lostResponse').split(',') as FaultKind[];
  const tables = { eventsTable: env('EVENTS_TABLE'), viewsTable: env('VIEWS_TABLE'), streamArn: env('STREAM_ARN') };
  const client = new DynamoDBClient({ ...config, retryStrategy: quickRetries(2) });
  const dynamoFaults = injectFaults(client, { seed, rate, kinds, readModelTables: [tables.viewsTable] });
  const streamsClient = new DynamoDBStreamsClient({ ...config, maxAttempts: 1 });
  const streamsFaults = injectFaults(streamsClient, { seed: seed + 1, rate, kinds: ['throttle', 'internal', 'timeout'] });
  const faultCounts = () => {
    const counts: Record<string, number> = {};
    for (const [key, n] of dynamoFaults.injected) counts[key] = (counts[key] ?? 0) + n;
    for (const [key, n] of streamsFaults.injected) counts[`streams-${key}`] = (counts[`streams-${key}`] ?? 0) + n;
    return JSON.stringify(counts);
  };
  const checkpointClient = new DynamoDBClient({ ...config, maxAttempts: 3 });
  const bound = bind(client, tables, env('MODEL_SUFFIX'));
  const delayMs = Number(env('HANDLER_DELAY_MS', '0'));
  const feed = new ChangeFeedConsumer({
    streamsClient,
    streamArn: tables.streamArn,
    consumer: env('CONSUMER', 'chaos'),
    checkpoints: new LoggedCheckpointStore({ client: checkpointClient, table: env('CHECKPOINT_TABLE') }),
    pollIntervalMs: 20,
    batchSize: Number(env('BATCH_SIZE', '25')),
    backoff: { initialMs: 10, maxMs: 200 },
    lease: { durationMs: Number(env('LEASE_MS', '1500')), renewEveryMs: Number(env('RENEW_MS', '400')), onHeld: 'wait', owner: env('LEASE_OWNER') },
  });
  try {
    await runChangeFeed(feed, {
      projections: bound.projections,
      onBatch: async (_batch, result) => {
        for (const [name, outcomes] of Object.entries(result.outcomes)) {
          for (const outcome of outcomes) {
            if (outcome.status !== 'applied') continue;
            for (const event of outcome.applied) write(`A ${name} ${event.streamId}@${event.version} ${process.pid}`);
            for (const event of outcome.alreadyApplied) write(`R ${name} ${event.streamId}@${event.version} ${process.pid}`);
            for (const { event } of outcome.rejected) write(`J ${name} ${event.streamId}@${event.version} ${process.pid}`);
          }
        }
        write(`F ${process.pid} ${faultCounts()}`);
        // Processed, not yet acknowledged: where a kill or a pause most often lands.
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      },
    });
  } catch (error) {
    write(`L ${process.pid} ${Date.now()} ${error instanceof Error ? error.name : 'unknown'}`);
    throw error;
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exit(1);
  },
);

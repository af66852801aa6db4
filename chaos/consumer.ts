/**
 * A chaos consumer process: runChangeFeed over the events table's stream into every projection, with a
 * DynamoCheckpointStore, on clients that fail a share of their calls. With OUTBOX_TABLE and
 * OUTBOX_STREAM_ARN it also runs an OutboxRelay on the outbox's stream (its own feed and faulty client; a
 * publish that sometimes fails or loses its acknowledgement) and, once the events feed ended, stops that
 * feed and drains what is left with `drainAll`. It logs synchronously to OUT_FILE (so a SIGKILL loses
 * nothing written) every event applied, already applied, rejected or skipped, every publication, and
 * every checkpoint write it starts and finishes. Exits 0 once the stream is disabled and drained.
 *
 * Lines: `A <projection> <streamId>@<version> <pid> <row key json>` (applied), `R|J|K <projection> <streamId>@<version> <pid>`
 * (already applied, rejected, skipped), `P <pid> <epoch ms> <sequence>` (checkpoint
 * write started), `Q <pid> <epoch ms> <sequence>` (written), `L <pid> <epoch ms> <error name>` (ended),
 * `F <pid> <json>` (faults injected so far, by kind), `M <pid> <message id> <projection>|<row key>`
 * (published), `X <pid> <error name>` (the relay's feed failed and starts again), `D <pid>` (outbox drained at the end),
 * `S <pid> <shard id> <first sequence> <last sequence>` (a batch of the events feed, processed).
 *
 * With SIM_SEED it reads the events table's stream through the simulated Streams endpoint (`simulated.ts`):
 * 32 shards that split and roll over, rebuilt from the seed in every process, so a restarted process finds
 * the shards its checkpoints name.
 */
import './env';
import { appendFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { OutboxRelay } from 'dynafold/outbox';
import { ChangeFeedConsumer, DynamoCheckpointStore, runBatches, runChangeFeed, type FeedKey } from 'dynafold/feed';
import { DynamoLocalDefaults } from 'dynafold/local';
import { injectFaults, quickRetries, type FaultKind } from './faults';
import { seededRandom } from './random';
import { simulatedEvents, simulationFigures, type SimulatedEvents } from './simulated';
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
  const kinds = env('FAULT_KINDS', 'throttle,internal,timeout,conflict,conditional,lostResponse').split(',') as FaultKind[];
  const outboxTable = process.env['OUTBOX_TABLE'];
  const outboxStreamArn = process.env['OUTBOX_STREAM_ARN'];
  const tables = {
    eventsTable: env('EVENTS_TABLE'),
    viewsTable: env('VIEWS_TABLE'),
    streamArn: env('STREAM_ARN'),
    ...(outboxTable === undefined || outboxStreamArn === undefined ? {} : { outboxTable, outboxStreamArn }),
  };
  const client = new DynamoDBClient({ ...config, retryStrategy: quickRetries(2) });
  const dynamoFaults = injectFaults(client, { seed, rate, kinds, readModelTables: [tables.viewsTable] });
  const streamsClient = new DynamoDBStreamsClient({ ...config, maxAttempts: 1 });
  const streamsFaults = injectFaults(streamsClient, { seed: seed + 1, rate, kinds: ['throttle', 'internal', 'timeout'] });
  const relayClient = new DynamoDBClient({ ...config, retryStrategy: quickRetries(2) });
  const relayFaults = injectFaults(relayClient, { seed: seed + 2, rate, kinds: ['throttle', 'internal', 'timeout', 'lostResponse'] });
  const publishFaults = new Map<string, number>();
  const simSeed = process.env['SIM_SEED'];
  const simulated: SimulatedEvents | undefined =
    simSeed === undefined ? undefined : await simulatedEvents(config, tables.streamArn, Number(simSeed), rate);
  const faultCounts = () => {
    const counts: Record<string, number> = {};
    for (const [key, n] of dynamoFaults.injected) counts[key] = (counts[key] ?? 0) + n;
    for (const [key, n] of streamsFaults.injected) counts[`streams-${key}`] = (counts[`streams-${key}`] ?? 0) + n;
    for (const [key, n] of relayFaults.injected) counts[`relay-${key}`] = (counts[`relay-${key}`] ?? 0) + n;
    for (const [key, n] of checkpointFaults.injected) counts[`checkpoints-${key}`] = (counts[`checkpoints-${key}`] ?? 0) + n;
    for (const [key, n] of publishFaults) counts[key] = (counts[key] ?? 0) + n;
    if (simulated !== undefined) for (const [key, n] of simulationFigures(simulated.counts()).faults) counts[key] = n;
    return JSON.stringify(counts);
  };
  const checkpointClient = new DynamoDBClient({ ...config, maxAttempts: 3 });
  // Checkpoints and leases lose answers too (their writes are unconditional, or conditioned on the owner
  // itself): at a quarter of the rate, so that the SDK's three tries mostly absorb them.
  const checkpointFaults = injectFaults(checkpointClient, { seed: seed + 4, rate: rate / 4, kinds: ['lostResponse'] });

  // The outbox relay: its own feed on the outbox's stream, its own faulty client, a publish that fails.
  const publishRandom = seededRandom(seed + 3);
  const publishFailRate = Number(env('PUBLISH_FAIL_RATE', String(rate)));
  const relay =
    outboxTable === undefined
      ? undefined
      : new OutboxRelay({
          client: relayClient,
          table: outboxTable,
          concurrency: 4,
          publish: async (message) => {
            const roll = publishRandom();
            const fault = (name: string) => publishFaults.set(`publish:${name}`, (publishFaults.get(`publish:${name}`) ?? 0) + 1);
            if (roll < publishFailRate / 2) {
              fault('failed');
              throw new Error('publish failed (injected)');
            }
            write(`M ${process.pid} ${message.id} ${message.projection}|${JSON.stringify(message.key)}`);
            if (roll < publishFailRate) {
              fault('acknowledgementLost');
              throw new Error('published, acknowledgement lost (injected)');
            }
          },
        });
  // A relay feed that fails is logged (an X line, which the check reports as a problem) and started again
  // from its checkpoint, so that the run goes on and the final check can tell what else went wrong.
  let relayFeed: ChangeFeedConsumer | undefined;
  let relayStopped = false;
  const relayRun =
    relay === undefined || outboxStreamArn === undefined
      ? undefined
      : (async () => {
          while (!relayStopped) {
            relayFeed = new ChangeFeedConsumer({
              streamsClient,
              streamArn: outboxStreamArn,
              consumer: `${env('CONSUMER', 'chaos')}-relay`,
              checkpoints: new DynamoCheckpointStore({ client: checkpointClient, table: env('CHECKPOINT_TABLE') }),
              pollIntervalMs: 20,
              batchSize: 25,
              retry: { backoff: { initialMs: 10, maxMs: 200 } },
              lease: {
                durationMs: Number(env('LEASE_MS', '5000')),
                renewEveryMs: Number(env('RENEW_MS', '1000')),
                onHeld: 'wait',
                owner: `${env('LEASE_OWNER')}-relay`,
              },
            });
            try {
              await runBatches(relayFeed, async (batch) => (await relay.processBatch(batch.records)).response);
            } catch (error) {
              write(`X ${process.pid} ${error instanceof Error ? error.name : 'unknown'}`);
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          }
        })();
  const bound = bind(client, tables, env('MODEL_SUFFIX'));
  const delayMs = Number(env('HANDLER_DELAY_MS', '0'));
  const feed = new ChangeFeedConsumer({
    // The relay keeps the plain client: the simulation serves the events table's stream only.
    streamsClient: simulated?.client() ?? streamsClient,
    streamArn: tables.streamArn,
    // The simulation lists a new shard up to 300 ms late; DynamoDB Local lists its one shard at once.
    disabledSettleMs: simulated === undefined ? 0 : 1_000,
    consumer: env('CONSUMER', 'chaos'),
    checkpoints: new LoggedCheckpointStore({ client: checkpointClient, table: env('CHECKPOINT_TABLE') }),
    pollIntervalMs: 20,
    batchSize: Number(env('BATCH_SIZE', '25')),
    retry: { backoff: { initialMs: 10, maxMs: 200 } },
    lease: { durationMs: Number(env('LEASE_MS', '5000')), renewEveryMs: Number(env('RENEW_MS', '1000')), onHeld: 'wait', owner: env('LEASE_OWNER') },
  });
  try {
    await runChangeFeed(feed, {
      projections: bound.projections,
      onBatch: async (result, batch) => {
        const sequence = (at: number) => batch.records.at(at)?.dynamodb?.SequenceNumber ?? '-';
        write(`S ${process.pid} ${batch.shardId} ${sequence(0)} ${sequence(-1)}`);
        for (const [name, outcomes] of Object.entries(result.outcomes)) {
          for (const outcome of outcomes) {
            // A failed or parked row may have applied what came before its failing event.
            const row = JSON.stringify(outcome.key ?? null);
            for (const event of outcome.applied) write(`A ${name} ${event.streamName}#${event.streamId}@${event.version} ${process.pid} ${row}`);
            if (outcome.status !== 'applied') continue;
            for (const event of outcome.alreadyApplied) write(`R ${name} ${event.streamName}#${event.streamId}@${event.version} ${process.pid}`);
            for (const { event } of outcome.rejected) write(`J ${name} ${event.streamName}#${event.streamId}@${event.version} ${process.pid}`);
            for (const event of outcome.skipped) write(`K ${name} ${event.streamName}#${event.streamId}@${event.version} ${process.pid}`);
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
  // The events feed ended: stop the relay's feed (one relay at a time per row), then sweep what is left.
  if (relay !== undefined) {
    relayStopped = true;
    await relayFeed?.stop();
    await relayRun;
    for (let pass = 0; ; pass++) {
      const result = await relay.drainAll().catch((error: unknown) => ({ failures: [{ error }] }));
      write(`F ${process.pid} ${faultCounts()}`);
      if (result.failures.length === 0) break;
      if (pass > 200) throw new Error(`the outbox could not be drained: ${String(result.failures[0]?.error)}`);
    }
    write(`D ${process.pid}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

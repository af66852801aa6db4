/**
 * Lease faults: consumer A holds the feed's lease and is paused with SIGSTOP (mid-batch, most likely)
 * for longer than the lease lasts, while consumer B waits for it. B takes the lapsed lease and carries
 * on; A is resumed with SIGCONT and must not start a single checkpoint write after that: it has to
 * notice it lost the lease and fail with LeaseLostError. B drains the stream to the end; the checkpoint
 * table must show B's final state, and every row its fold.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoCheckpointStore } from 'dynafold/feed';
import {
  consumerFaults,
  CONSUMER_START_MS,
  createCheckpointTable,
  disableStream,
  exitWithin,
  logLines,
  sleep,
  startConsumer,
  waitUntil,
  type Consumer,
} from './processes';
import { randomInt, seededRandom } from './random';
import { ChaosSummary } from './summary';
import { appendOrderChunk, bind, checkRows, createTables, readTruth, type ClientConfig } from './world';

export interface LeaseScenarioOptions {
  readonly seed: number;
  readonly leaseMs?: number;
  readonly faultRate?: number;
  readonly log?: (line: string) => void;
}

export async function runLeaseScenario(config: ClientConfig, client: DynamoDBClient, options: LeaseScenarioOptions): Promise<ChaosSummary> {
  const summary = new ChaosSummary();
  const say = options.log ?? (() => undefined);
  const random = seededRandom(options.seed);
  const leaseMs = options.leaseMs ?? 1_200;
  const tables = await createTables(client, 'lease');
  const checkpointTable = await createCheckpointTable(client);
  const out = join(mkdtempSync(join(tmpdir(), 'dynafold-lease-')), 'consumers.log');
  const suffix = `l${options.seed}`;
  const orderIds = Array.from({ length: 4 }, (_, i) => `o-${i}`);
  const writer = bind(client, tables, suffix);
  const versions = new Map<string, number>();
  let writing = true;
  const writerDone = (async () => {
    while (writing) {
      const orderId = orderIds[randomInt(random, 0, orderIds.length - 1)] as string;
      versions.set(orderId, await appendOrderChunk(writer.orders, orderId, versions.get(orderId) ?? 0, random));
      await sleep(randomInt(random, 5, 25));
    }
  })();
  const env = {
    DYNAMODB_ENDPOINT: config.endpoint,
    EVENTS_TABLE: tables.eventsTable,
    VIEWS_TABLE: tables.viewsTable,
    STREAM_ARN: tables.streamArn,
    CHECKPOINT_TABLE: checkpointTable,
    OUT_FILE: out,
    FAULT_RATE: String(options.faultRate ?? 0.03),
    FAULT_SEED: String(options.seed),
    MODEL_SUFFIX: suffix,
    LEASE_MS: String(leaseMs),
    RENEW_MS: String(Math.floor(leaseMs / 4)),
    HANDLER_DELAY_MS: '40',
    BATCH_SIZE: '5',
  };
  const commits = (pid: number | undefined) => logLines(out).filter(([kind, who]) => kind === 'Q' && who === String(pid)).length;
  let a: Consumer | undefined;
  let b: Consumer | undefined;
  try {
    a = startConsumer({ ...env, LEASE_OWNER: 'consumer-a' });
    await waitUntil(() => commits(a?.child.pid) >= 2, CONSUMER_START_MS, 'consumer A to commit');
    b = startConsumer({ ...env, LEASE_OWNER: 'consumer-b' });
    await sleep(randomInt(random, 200, 600));
    a.child.kill('SIGSTOP');
    const stoppedAt = Date.now();
    // B was started just before A stopped: its wait holds its own start (TypeScript compiled on a loaded
    // machine, see CONSUMER_START_MS) as well as the lease running out.
    await waitUntil(() => commits(b?.child.pid) >= 1, CONSUMER_START_MS + leaseMs * 10, 'consumer B to take over and commit');
    await sleep(randomInt(random, 0, 300));
    const resumedAt = Date.now();
    a.child.kill('SIGCONT');
    summary.leasePauses++;
    const exitA = await exitWithin(a, 20_000, 'the resumed consumer A');
    const aLines = logLines(out).filter(([, who]) => who === String(a?.child.pid));
    const late = aLines.filter(([kind, , at]) => kind === 'P' && Number(at) >= resumedAt);
    if (late.length > 0)
      summary.problem(`lease seed ${options.seed}: A started ${late.length} checkpoint write(s) after it was resumed without its lease`);
    const ended = aLines.find(([kind]) => kind === 'L');
    if (exitA.code !== 1 || ended?.[3] !== 'LeaseLostError') {
      summary.problem(
        `lease seed ${options.seed}: A should fail with LeaseLostError, exited ${exitA.code} (${ended?.[3] ?? 'no error logged'}) ${exitA.stderr.slice(-300)}`,
      );
    }
    say(`lease: A paused ${resumedAt - stoppedAt} ms (lease ${leaseMs} ms), then ended with ${ended?.[3] ?? 'nothing'}; B carried on`);

    writing = false;
    await writerDone;
    await disableStream(client, tables.eventsTable);
    const exitB = await exitWithin(b, 120_000, 'consumer B');
    if (exitB.code !== 0) summary.problem(`lease seed ${options.seed}: B exited ${exitB.code}: ${exitB.stderr.slice(-500)}`);
  } finally {
    writing = false;
    a?.child.kill('SIGKILL');
    b?.child.kill('SIGKILL');
    await writerDone.catch((error: unknown) => summary.problem(`lease seed ${options.seed}: writer failed: ${String(error)}`));
  }

  // The checkpoint table holds B's end state: its shard finished, not an older position A wrote late.
  const store = new DynamoCheckpointStore({ client, table: checkpointTable });
  const checkpoints = await store.getCheckpoints({ consumer: 'chaos', streamArn: tables.streamArn });
  if (checkpoints.size === 0 || [...checkpoints.values()].some((checkpoint) => checkpoint.kind !== 'finished')) {
    summary.problem(`lease seed ${options.seed}: checkpoints after B drained the stream: ${JSON.stringify([...checkpoints])}`);
  }
  const truth = await readTruth(bind(client, tables, suffix), { orders: orderIds });
  const check = await checkRows(bind(client, tables, suffix), truth);
  summary.rowsChecked += check.rows;
  summary.divergedRows += check.diverged.length;
  for (const row of check.diverged) summary.problem(`lease seed ${options.seed}: diverged ${row}`);
  const applied = new Map<string, number>();
  const reached = new Set<string>();
  for (const [kind, projection, id] of logLines(out)) {
    if (kind !== 'A' && kind !== 'R') continue;
    reached.add(`${projection} ${id}`);
    if (kind === 'A') applied.set(`${projection} ${id}`, (applied.get(`${projection} ${id}`) ?? 0) + 1);
  }
  for (const [key, n] of applied) {
    if (n <= 1) continue;
    summary.doubleApplied++;
    summary.problem(`lease seed ${options.seed}: ${key} applied ${n} times`);
  }
  for (const [orderId, events] of truth.orders) {
    for (const event of events) {
      if (reached.has(`summaries Order#${orderId}@${event.version}`)) continue;
      summary.lostEvents++;
      summary.problem(`lease seed ${options.seed}: ${orderId}@${event.version} never reached`);
    }
  }
  summary.events += truth.events;
  summary.addFaults(consumerFaults(logLines(out)));
  return summary;
}

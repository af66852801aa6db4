import { runCrashScenario } from '../../chaos/crash';
import { runLeaseScenario } from '../../chaos/lease';
import { runShardsScenario } from '../../chaos/shards';
import { localConfig, testClient } from '../support/dynamo';

// A short slice of `npm run test:chaos`; reproduce with CHAOS_SEED=<seed printed in the test name>.
const SEED = Number(process.env['CHAOS_SEED'] ?? Date.now() % 100_000);
const client = testClient();

afterAll(() => client.destroy());

test(`a consumer process SIGKILLed at random moments under load loses nothing, applies nothing twice, and its outbox relay publishes every applied event in order per row (seed ${SEED})`, async () => {
  const summary = await runCrashScenario(localConfig(), client, { seed: SEED, kills: 2, orders: 4, sensors: 2, killEveryMs: [200, 700] });
  expect(summary.problems).toEqual([]);
  expect(summary).toMatchObject({ crashes: 2, divergedRows: 0, lostEvents: 0, doubleApplied: 0 });
  // 4 order summaries, 2 sensors × 3 zones, 6 customers (multi-source), 3 accounts.
  expect(summary.rowsChecked).toBe(4 + 2 * 3 + 6 + 3);
  expect(summary.multiSourceRows).toBe(6);
  expect(summary).toMatchObject({ outboxMissing: 0, outboxDisorder: 0 });
  expect(summary.outboxPublished).toBeGreaterThan(0);
}, 900_000);

test(`consumer processes SIGKILLed while reading 32 simulated shards that split and roll over find their shards again: every shard finished, parents before children, each row's events in order, none lost or twice (seed ${SEED})`, async () => {
  const summary = await runCrashScenario(localConfig(), client, {
    seed: SEED,
    kills: 2,
    orders: 4,
    sensors: 2,
    killEveryMs: [200, 700],
    shards: true,
  });
  expect(summary.problems).toEqual([]);
  expect(summary).toMatchObject({ crashes: 2, divergedRows: 0, lostEvents: 0, doubleApplied: 0, outboxMissing: 0, outboxDisorder: 0 });
  expect(summary.rowsChecked).toBe(4 + 2 * 3 + 6 + 3);
  // 32 shards to start with, and their children.
  expect(summary.shardsOpened).toBeGreaterThanOrEqual(32);
}, 900_000);

test(`a consumer paused with SIGSTOP past its lease never commits after SIGCONT; the other carries on to the end (seed ${SEED})`, async () => {
  // Leases long enough that a consumer starved of CPU, or waiting on a DynamoDB Local kept busy by the other
  // test worker, keeps its own: renewed every 2 s, it survives a 6 s stall.
  const summary = await runLeaseScenario(localConfig(), client, { seed: SEED, leaseMs: 8_000 });
  expect(summary.problems).toEqual([]);
  expect(summary).toMatchObject({ leasePauses: 1, divergedRows: 0, lostEvents: 0, doubleApplied: 0 });
}, 900_000);

test(`consumers replaced mid-lineage on 32 simulated shards, one of them losing its lease while its renewals stall, leave every row equal to its fold, nothing lost or twice, every shard finished (seed ${SEED})`, async () => {
  const summary = await runShardsScenario(localConfig(), client, { seed: SEED, restarts: 2 });
  expect(summary.problems).toEqual([]);
  expect(summary).toMatchObject({ feedRestarts: 2, divergedRows: 0, lostEvents: 0, doubleApplied: 0 });
  // The stalled one at least; a busy machine may make another lapse.
  expect(summary.leaseLapses).toBeGreaterThanOrEqual(1);
  expect(summary.shardsOpened).toBeGreaterThanOrEqual(32);
}, 900_000);

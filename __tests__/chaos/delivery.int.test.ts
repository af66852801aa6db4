import { ALL_FAULTS } from '../../chaos/faults';
import { prepareDelivery, runSchedule, type DeliveryInput } from '../../chaos/delivery';
import { scheduleSeed } from '../../chaos/random';
import { ChaosSummary } from '../../chaos/summary';
import { localConfig, testClient } from '../support/dynamo';

// A short seeded slice of `npm run test:chaos`; reproduce a failure with CHAOS_SEED=<seed printed below>.
const SEED = Number(process.env['CHAOS_SEED'] ?? Date.now() % 100_000);
const RUNS = Number(process.env['CHAOS_RUNS'] ?? 4);
const client = testClient();
let input: DeliveryInput;

afterAll(() => client.destroy());

beforeAll(async () => {
  input = await prepareDelivery(localConfig(), client, { seed: SEED, orders: 5, sensors: 3, purchases: 5, programs: 2, accounts: 3, chunks: 4 });
});

test(`shuffled, duplicated, split, concurrent deliveries (some read through simulated shards) under injected faults fold every row (single-stream, event-keyed, multi-source, removed, poisoned then partly fixed, skipped and replayed) exactly once and in version order, and the outbox relay publishes every applied event in order per row (seed ${SEED})`, async () => {
  const total = new ChaosSummary();
  let poisonSchedules = 0;
  for (let run = 0; run < RUNS; run++) {
    // Every other schedule also loses the answers of some row writes after DynamoDB applied them.
    const kinds = run % 2 === 0 ? ALL_FAULTS : [...ALL_FAULTS, 'lostResponse' as const];
    // Schedules 1, 2, 5, ... write an outbox and relay it, with and without lost row-write answers.
    const outbox = run % 4 === 1 || run % 4 === 2;
    // Schedules 2, 3, 6, ... poison a few rows' evolve with several kinds of bug: parked, partly fixed, then
    // fully; schedules 2, 6, ... also skip some parked events after a partial fix.
    const poison = run % 4 >= 2;
    if (poison) poisonSchedules++;
    const skips = run % 4 === 2;
    // Schedules 1, 3, 5, ... read their records through 32 simulated shards that split and roll over.
    const simulatedShards = run % 2 === 1;
    total.merge(await runSchedule(input, { seed: scheduleSeed(SEED, run), faultRate: 0.1, kinds, outbox, poison, skips, simulatedShards }));
  }
  const table = total.table(`chaos delivery slice, seed ${SEED}`);
  expect({ problems: total.problems, table }).toEqual({ problems: [], table: expect.stringContaining('RESULT: ok') });
  expect(total.divergedRows + total.lostEvents + total.doubleApplied + total.outOfOrder).toBe(0);
  expect([...total.faults.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(RUNS);
  expect(total.rowsChecked).toBe(RUNS * (5 + 3 * 3 + 6 + 3));
  expect(total.multiSourceRows).toBe(RUNS * 6);
  expect(total.outboxPublished).toBeGreaterThan(0);
  expect(total.outboxMissing + total.outboxDisorder).toBe(0);
  expect(total.rowsParked).toBeGreaterThan(0);
  // Every poison schedule deploys at least one partial fix before the last.
  expect(total.partialFixes).toBeGreaterThanOrEqual(poisonSchedules);
  expect(total.simulatedSchedules).toBe(Math.floor(RUNS / 2));
  expect(total.shardsOpened).toBeGreaterThanOrEqual(32 * Math.floor(RUNS / 2));
  process.stdout.write(`${table}\n`);
}, 300_000);

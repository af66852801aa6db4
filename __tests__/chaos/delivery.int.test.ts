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

test(`shuffled, duplicated, split, concurrent deliveries under injected faults fold every row (single-stream, event-keyed, multi-source, removed, poisoned then replayed) exactly once, and the outbox relay publishes every applied event in order per row (seed ${SEED})`, async () => {
  const total = new ChaosSummary();
  for (let run = 0; run < RUNS; run++) {
    // Every other schedule also loses the answers of some row writes after DynamoDB applied them.
    const kinds = run % 2 === 0 ? ALL_FAULTS : [...ALL_FAULTS, 'lostResponse' as const];
    // Schedules 1, 2, 5, ... write an outbox and relay it, with and without lost row-write answers.
    const outbox = run % 4 === 1 || run % 4 === 2;
    // Schedules 2, 3, 6, ... poison a few rows' evolve: parked, then replayed once fixed.
    const poison = run % 4 >= 2;
    total.merge(await runSchedule(input, { seed: scheduleSeed(SEED, run), faultRate: 0.1, kinds, outbox, poison }));
  }
  const table = total.table(`chaos delivery slice, seed ${SEED}`);
  expect({ problems: total.problems, table }).toEqual({ problems: [], table: expect.stringContaining('RESULT: ok') });
  expect(total.divergedRows + total.lostEvents + total.doubleApplied).toBe(0);
  expect([...total.faults.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(RUNS);
  expect(total.rowsChecked).toBe(RUNS * (5 + 3 * 3 + 6 + 3));
  expect(total.multiSourceRows).toBe(RUNS * 6);
  expect(total.outboxPublished).toBeGreaterThan(0);
  expect(total.outboxMissing + total.outboxDisorder).toBe(0);
  expect(total.rowsParked).toBeGreaterThan(0);
  process.stdout.write(`${table}\n`);
}, 120_000);

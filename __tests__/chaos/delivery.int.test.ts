import { ALL_FAULTS } from '../../chaos/faults';
import { prepareDelivery, runSchedule, type DeliveryInput } from '../../chaos/delivery';
import { scheduleSeed } from '../../chaos/random';
import { ChaosSummary } from '../../chaos/summary';
import { localConfig, testClient } from '../support/dynamo';

// A short seeded slice of `npm run test:chaos`; reproduce a failure with CHAOS_SEED=<seed printed below>.
const SEED = Number(process.env['CHAOS_SEED'] ?? Date.now() % 100_000);
const RUNS = Number(process.env['CHAOS_RUNS'] ?? 8);
const client = testClient();
let input: DeliveryInput;

afterAll(() => client.destroy());

beforeAll(async () => {
  input = await prepareDelivery(localConfig(), client, { seed: SEED, orders: 6, sensors: 4, chunks: 4 });
});

test(`shuffled, duplicated, split, concurrent deliveries under injected faults fold every row exactly once (seed ${SEED})`, async () => {
  const total = new ChaosSummary();
  for (let run = 0; run < RUNS; run++) {
    // Every other schedule also loses the answers of some row writes after DynamoDB applied them.
    const kinds = run % 2 === 0 ? ALL_FAULTS : [...ALL_FAULTS, 'lostResponse' as const];
    total.merge(await runSchedule(input, { seed: scheduleSeed(SEED, run), faultRate: 0.1, kinds }));
  }
  const table = total.table(`chaos delivery slice, seed ${SEED}`);
  expect({ problems: total.problems, table }).toEqual({ problems: [], table: expect.stringContaining('RESULT: ok') });
  expect(total.divergedRows + total.lostEvents + total.doubleApplied).toBe(0);
  expect([...total.faults.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(RUNS);
  expect(total.rowsChecked).toBe(RUNS * (6 + 4 * 3));
  process.stdout.write(`${table}\n`);
});

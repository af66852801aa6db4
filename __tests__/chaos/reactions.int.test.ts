import { createReactionsWorld, dropReactionsWorld, runReactionsSchedule, type ReactionsWorld } from '../../chaos/reactions';
import { scheduleSeed } from '../../chaos/random';
import { ChaosSummary } from '../../chaos/summary';
import { localConfig, testClient } from '../support/dynamo';

// A short seeded slice of `npm run test:chaos -- --only reactions`; reproduce a failure with CHAOS_SEED=<seed printed below>.
const SEED = Number(process.env['CHAOS_SEED'] ?? Date.now() % 100_000);
const RUNS = Number(process.env['CHAOS_RUNS'] ?? 4);
const client = testClient();
let world: ReactionsWorld;

beforeAll(async () => {
  world = await createReactionsWorld(client);
});
afterAll(async () => {
  await dropReactionsWorld(client, world);
  client.destroy();
});

test(`a reaction and a workflow with timers, under every fault, lost answers on every kind of write, calls cut short, redelivery and reordering on parallel lanes, have every effect once, every timer once and never early, every input recorded once (seed ${SEED})`, async () => {
  const total = new ChaosSummary();
  for (let run = 0; run < RUNS; run++)
    total.merge(await runReactionsSchedule(localConfig(), client, world, { seed: scheduleSeed(SEED, run), faultRate: 0.1 }));
  const table = total.table(`chaos reactions slice, seed ${SEED}`);
  expect({ problems: total.problems, table }).toEqual({ problems: [], table: expect.stringContaining('RESULT: ok') });
  expect(total.effectsLost + total.effectsDoubled + total.timersEarly + total.inputsMisrecorded + total.outOfOrder).toBe(0);
  expect(total.reactionSchedules).toBe(RUNS);
  expect(total.effectsChecked).toBeGreaterThan(RUNS);
  expect(total.timersFired).toBeGreaterThan(0);
  expect(total.lostAnswers()).toBeGreaterThan(0);
  process.stdout.write(`${table}\n`);
}, 300_000);

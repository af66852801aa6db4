/**
 * Side effects hang on `applied`, and a failed outcome has one too: when `evolve` throws partway through a
 * row, the events before it are written and listed only there (the redelivery finds them already
 * applied). A loop over every outcome's `applied`, whatever its status, sees each event exactly once; the
 * loop that skips failed outcomes misses those events.
 */
import { Projection, eventsTableDefinition, readModelTableDefinition, type RowOutcome } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { evolveSummary, initialSummary, orderSummaries } from '../support/order-projection';
import { orderStream } from '../support/orders';

const client = testClient();
afterAll(() => client.destroy());

/** The README's side-effect loop: each event of every outcome's `applied`. */
function sideEffects(outcomes: ReadonlyArray<RowOutcome>): string[] {
  const done: string[] = [];
  for (const outcome of outcomes) for (const event of outcome.applied) done.push(`${event.streamId}@${event.version}`);
  return done;
}

test("events written before evolve threw are in the failed outcome's applied, and the loop over every outcome sees each once", async () => {
  const stream = orderStream(client, (await createTestTable(client, eventsTableDefinition, 'effects-events')).name);
  const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'effects-views')).name;
  await stream.append({ orderId: 'ab' }, [
    { type: 'OrderPlaced', data: { customer: 'ab' } },
    { type: 'ItemAdded', data: { sku: 'pen', price: 2 } },
    { type: 'ItemAdded', data: { sku: 'ink', price: 3 } },
  ]);
  const events = await stream.read({ orderId: 'ab' });
  let broken = true;
  const projection = new Projection({
    stream,
    readModel: orderSummaries(client, views),
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => {
      if (broken && event.version === 3) throw new Error('a bug in evolve');
      return evolveSummary(state, event);
    },
    checkpoint: 'version',
  });
  const first = await projection.applyBatch(events);
  expect(first.outcomes).toMatchObject([{ status: 'failed' }]);
  expect(first.outcomes[0]?.applied.map((event) => event.version)).toEqual([1, 2]);
  broken = false;
  const redelivered = await projection.applyBatch(events);
  expect(redelivered.outcomes).toMatchObject([{ status: 'applied' }]);
  const [again] = redelivered.outcomes;
  expect(again?.status === 'applied' && again.alreadyApplied.map((event) => event.version)).toEqual([1, 2]);
  expect([...sideEffects(first.outcomes), ...sideEffects(redelivered.outcomes)]).toEqual(['ab@1', 'ab@2', 'ab@3']);
});

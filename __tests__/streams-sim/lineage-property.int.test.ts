import fc from 'fast-check';
import { propertySettings, propertyTimeout } from '../support/delivery';
import { testClient } from '../support/dynamo';
import { simulatedWorld, writeAndDrain } from './support';

const client = testClient();
afterAll(() => client.destroy());

/** Keys from a two-letter alphabet, so that keys share shards and a shard's split separates them. */
const keyArbitrary = fc.constantFrom('a', 'b', 'aa', 'ab', 'ba', 'bb');

describe('the change feed on seeded simulated lineages (property)', () => {
  it(
    'delivers every item of every key once and in order, whatever the seed and the order of writes',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.array(keyArbitrary, { minLength: 10, maxLength: 40 }), async (seed, writes) => {
          const world = await simulatedWorld(client, {
            seed,
            shards: 4,
            rolloverChance: 0.1,
            splitChance: 0.1,
            faults: { throttleChance: 0.05, failureChance: 0.05, maxEmptyPages: 2, maxListingLagMs: 50 },
          });
          const { log, counts } = await writeAndDrain(client, world, writes);
          world.close();
          const expected = new Map([...counts].map(([pk, n]) => [pk, Array.from({ length: n }, (_, i) => i)]));
          expect(log.byKey()).toEqual(expected);
          expect(log.childrenBeforeParents()).toEqual([]);
        }),
        propertySettings(2),
      );
    },
    propertyTimeout(2),
  );
});

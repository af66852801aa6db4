import fc from 'fast-check';
import { z } from 'zod';
import { EventStream, eventsTableDefinition } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { propertySettings, propertyTimeout } from '../support/delivery';

// Two `EventStream`s of one stream instance append commits of a few events, load from a snapshot (saving one
// every few events) and save snapshots by hand, in any order: each sizes its loads' read-ahead from what it
// saw (`SnapshotReadAhead`), and the other's appends make that short. Every load is the fold of every event
// appended before it, whatever the read-ahead, the snapshot's distance and the commits' sizes.
const client = testClient();
let table: string;
let cases = 0;

beforeAll(async () => {
  table = (await createTestTable(client, eventsTableDefinition, 'snapshot-loads')).name;
});
afterAll(() => client.destroy());

const events = { Added: z.object({ n: z.number() }) };
type State = { readonly count: number; readonly sum: number };
const fold = {
  initial: (): State => ({ count: 0, sum: 0 }),
  evolve: (state: State, event: { readonly data: { readonly n: number } }): State => ({ count: state.count + 1, sum: state.sum + event.data.n }),
};

const step = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), by: fc.constantFrom(0, 1), events: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('load' as const), by: fc.constantFrom(0, 1), every: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }) }),
  fc.record({ kind: fc.constant('save' as const), by: fc.constantFrom(0, 1) }),
);

test(
  'a load from a snapshot is the fold of every event appended before it, whatever each stream saw',
  async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 24 }), fc.constantFrom(0, 10_000), async (steps, rememberedVersions) => {
        const name = `SnapLoad${++cases}`;
        const streams = [0, 1].map(() => new EventStream({ client, table, name, streamId: ['id'], events, rememberedVersions }));
        const id = { id: 'ab' };
        const appended: number[] = [];
        for (const step of steps) {
          const stream = streams[step.by] as (typeof streams)[0];
          if (step.kind === 'append') {
            const ns = Array.from({ length: step.events }, (_, i) => appended.length + 1 + i);
            await stream.append(
              id,
              ns.map((n) => ({ type: 'Added' as const, data: { n } })),
            );
            appended.push(...ns);
          } else if (step.kind === 'load') {
            const loaded = await stream.load(id, fold, { snapshot: step.every === undefined ? {} : { every: step.every } });
            expect(loaded).toEqual({ version: appended.length, state: { count: appended.length, sum: appended.reduce((a, b) => a + b, 0) } });
          } else {
            await stream.saveSnapshot(id, await stream.load(id, fold));
          }
        }
      }),
      propertySettings(50),
    );
  },
  propertyTimeout(50),
);

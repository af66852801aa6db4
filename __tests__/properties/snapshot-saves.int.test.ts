import fc from 'fast-check';
import { eventsTableDefinition } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { propertySettings, propertyTimeout } from '../support/delivery';
import { orderStream } from '../support/orders';

// Saves of snapshots of a few stream and state versions, some of whose answers are lost after DynamoDB
// applied them (the SDK sends them again): each save resolves whether its snapshot was stored, as a model
// of the forward-only rule says, and the stored snapshot is the model's.
const client = testClient();
let table: string;
let cases = 0;
/** Whether the next snapshot PutItem's answer is lost once it was applied. */
let loseNext = false;
client.middlewareStack.add(
  (next, context) => async (args) => {
    const answer = await next(args);
    if (context.commandName !== 'PutItemCommand' || !loseNext) return answer;
    loseNext = false;
    throw Object.assign(new Error('Response lost after the write (injected)'), { name: 'TimeoutError', $metadata: {} });
  },
  // Inside the SDK's retry loop (retryMiddleware is finalizeRequest/high): the retry is sent again through it.
  { step: 'finalizeRequest', priority: 'low', name: 'loseSnapshotAnswers' },
);

beforeAll(async () => {
  table = (await createTestTable(client, eventsTableDefinition, 'snapshot-prop')).name;
});
afterAll(() => client.destroy());

const saves = fc.array(fc.record({ version: fc.integer({ min: 0, max: 3 }), stateVersion: fc.integer({ min: 1, max: 2 }), lost: fc.boolean() }), {
  minLength: 1,
  maxLength: 6,
});

/** The forward-only rule: a newer state version replaces any snapshot; within one, a later stream version. */
function replaces(stored: { version: number; stateVersion: number } | undefined, saved: { version: number; stateVersion: number }): boolean {
  if (stored === undefined || stored.stateVersion < saved.stateVersion) return true;
  return stored.stateVersion === saved.stateVersion && stored.version < saved.version;
}

test(
  'a save resolves whether its snapshot was stored, even when its answer was lost and the SDK sent it again',
  async () => {
    await fc.assert(
      fc.asyncProperty(saves, async (steps) => {
        const Orders = orderStream(client, table);
        const id = { orderId: `snap-${++cases}` };
        let stored: { version: number; state: { n: number }; stateVersion: number } | undefined;
        for (const [n, { version, stateVersion, lost }] of steps.entries()) {
          const snapshot = { version, state: { n }, stateVersion };
          const expected = replaces(stored, snapshot);
          loseNext = lost;
          expect(await Orders.saveSnapshot(id, snapshot)).toBe(expected);
          if (expected) stored = snapshot;
          const loaded = await Orders.loadSnapshot(id);
          expect(loaded === undefined ? undefined : { stateVersion: 1, ...loaded }).toEqual(stored);
        }
      }),
      propertySettings(15),
    );
  },
  propertyTimeout(15),
);

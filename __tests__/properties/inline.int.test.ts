import { createHash } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import fc from 'fast-check';
import { eventsTableDefinition, type AnyProjection } from 'dynafold';
import type { InlineProjection, InlineResult } from 'dynafold/types';
import { processBatch } from 'dynafold/lambda';
import { outboxTableDefinition } from 'dynafold/outbox';
import { injectFaults } from '../../chaos/faults';
import { deliver, deliveries, propertySettings, propertyTimeout, type Delivery } from '../support/delivery';
import { createTestTable, localConfig, testClient } from '../support/dynamo';
import { countRequests } from '../support/requests';
import {
  accountModel,
  accountsProjection,
  eventKey,
  ledgerStream,
  ownerModel,
  ownersProjection,
  toNewEvent,
  workload,
  zoneModel,
  zonesProjection,
  type LedgerAppend,
  type LedgerEvent,
} from '../support/ledger';
import { createViewsTable, outboxMessages, repeated } from '../support/ledger-case';
import { expectAccountRows, expectOwnerRows, expectZoneRows } from '../support/ledger-truth';
import { seededRandom } from '../support/random';
import { insertsOnly, readStreamRecords } from '../support/stream-records';

// Writers append with inline projections on several lanes at once (racing on the same stream instances
// and, through the multi-source rows, on the same rows), while a projector delivers the stream's records
// as they appear, shuffled, duplicated and on parallel lanes, losing races of its own. Whatever each
// append managed inline, every row ends equal to the fold of its streams and every event is applied
// exactly once: inline or by the projector, never both.
const client = testClient();
let viewsTable: string;
beforeAll(async () => {
  viewsTable = await createViewsTable(client);
});
afterAll(() => client.destroy());

const scenarios = fc.record({
  writers: fc.integer({ min: 1, max: 3 }),
  revision: fc.boolean(),
  outbox: fc.boolean(),
  lostRaces: fc.constantFrom(0, 0.2),
});

/** What the inline path did over every case: the property must not pass without it. */
const seen = { inlineApplied: 0, deferred: new Map<string, number>() };
let cases = 0;

test(
  'under concurrent inline writers and a projector delivering as records appear, every row equals its fold and every event is applied once',
  async () => {
    await fc.assert(
      fc.asyncProperty(workload, deliveries, scenarios, async (work, delivery, scenario) => {
        const events = await createTestTable(client, eventsTableDefinition, 'inline-prop-events');
        const outbox = scenario.outbox ? await createTestTable(client, outboxTableDefinition, 'inline-prop-outbox') : undefined;
        // The projector's client loses row races at the scenario's rate; the writers' client is plain.
        const rows = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
        injectFaults(rows, { seed: delivery.seed, rate: scenario.lostRaces, kinds: ['conditional'], readModelTables: [viewsTable] });
        const name = `I${++cases}x${Date.now().toString(36)}`;
        const projections = (on: DynamoDBClient) => {
          const a = ledgerStream(on, events.name, 'A');
          const b = ledgerStream(on, events.name, 'B');
          return {
            accounts: accountsProjection(a, accountModel(on, viewsTable, `${name}Account`), {
              revision: scenario.revision,
              ...(outbox === undefined ? {} : { outbox: outbox.name }),
            }),
            zones: zonesProjection(b, zoneModel(on, viewsTable, `${name}Zone`)),
            owners: ownersProjection(a, b, ownerModel(on, viewsTable, `${name}Owner`), {}),
          };
        };
        try {
          const writers = projections(client);
          const projector = projections(rows);
          const inlineEvents = new Map<string, string[]>();
          let writing = true;
          const appending = appendAll(client, events.name, work, scenario.writers, delivery.seed, writers, (result) => {
            for (const { projection, events: applied } of result.applied) {
              inlineEvents.set(projection, [...(inlineEvents.get(projection) ?? []), ...applied.map(eventKey)]);
            }
            seen.inlineApplied += result.applied.length;
            for (const { reason } of result.deferred) seen.deferred.set(reason, (seen.deferred.get(reason) ?? 0) + 1);
          }).finally(() => (writing = false));
          const byProjector = new Map<string, string[]>();
          const handle = async (batch: unknown[]) => {
            const result = await processBatch(batch, { projections: projector as Record<string, AnyProjection>, source: 'lambda' });
            for (const [projection, outcomes] of Object.entries(result.outcomes)) {
              const applied = byProjector.get(writers[projection as keyof typeof writers].name) ?? [];
              for (const outcome of outcomes) applied.push(...outcome.applied.map(eventKey));
              byProjector.set(writers[projection as keyof typeof writers].name, applied);
            }
            return result.response;
          };
          const records = await project(events.streamArn as string, delivery, () => writing, handle);
          await appending;
          // Everything once more, as a source replaying the whole shard would: nothing is applied again.
          await deliver(records, { ...delivery, seed: delivery.seed + 1 }, handle);

          const history = new Map<string, LedgerEvent[]>();
          for (const { stream, id } of work) {
            history.set(`${stream}#${id}`, (await ledgerStream(client, events.name, stream).read({ id })) as LedgerEvent[]);
          }
          const accounts = await expectAccountRows(accountModel(client, viewsTable, `${name}Account`), history);
          const expected = {
            [writers.accounts.name]: accounts.applied,
            [writers.zones.name]: await expectZoneRows(zoneModel(client, viewsTable, `${name}Zone`), history),
            [writers.owners.name]: await expectOwnerRows(ownerModel(client, viewsTable, `${name}Owner`), history),
          };
          for (const [projection, applied] of Object.entries(expected)) {
            const inline = inlineEvents.get(projection) ?? [];
            const projected = byProjector.get(projection) ?? [];
            expect({ projection, repeated: repeated([...inline, ...projected]), both: projected.filter((key) => inline.includes(key)) }).toEqual({
              projection,
              repeated: [],
              both: [],
            });
            expect({ projection, applied: [...inline, ...projected].sort() }).toEqual({ projection, applied: [...applied].sort() });
          }
          if (outbox !== undefined) {
            // One message per applied event, whichever path applied it.
            const messages = await outboxMessages(client, outbox.name);
            expect(repeated(messages.map((message) => message.id))).toEqual([]);
            expect(messages.map((message) => message.id.replace(/#(\d+)$/, '@$1')).sort()).toEqual([...accounts.applied].sort());
          }
        } finally {
          rows.destroy();
          await client.send(new DeleteTableCommand({ TableName: events.name }));
          if (outbox !== undefined) await client.send(new DeleteTableCommand({ TableName: outbox.name }));
        }
      }),
      propertySettings(10),
    );
    // The cases exercised the inline path both ways.
    expect(seen.inlineApplied).toBeGreaterThan(0);
    expect(seen.deferred.get('behind') ?? 0).toBeGreaterThan(0);
  },
  propertyTimeout(10),
);

/**
 * Appends the workload on `writers` lanes at once, each lane in its order, at the head (racing lanes
 * retry), with every projection of the appending stream inline. Reports each append's inline result.
 */
async function appendAll(
  on: DynamoDBClient,
  table: string,
  work: ReadonlyArray<LedgerAppend>,
  writers: number,
  seed: number,
  projections: { accounts: InlineProjection; zones: InlineProjection; owners: InlineProjection },
  report: (result: InlineResult) => void,
): Promise<void> {
  const random = seededRandom(seed);
  const lanes: LedgerAppend[][] = Array.from({ length: writers }, () => []);
  for (const append of work) lanes[Math.floor(random() * writers)]?.push(append);
  const streams = { A: ledgerStream(on, table, 'A'), B: ledgerStream(on, table, 'B') };
  const inline = { A: [projections.accounts, projections.owners], B: [projections.zones, projections.owners] };
  await Promise.all(
    lanes.map(async (lane) => {
      for (const append of lane) {
        const result = await streams[append.stream].append({ id: append.id }, append.events.map(toNewEvent) as never, {
          inline: inline[append.stream],
        });
        report(result.inline as InlineResult);
      }
    }),
  );
}

/**
 * A projector running beside the writers: it reads the events table's stream and delivers each round of
 * new records as `delivery` says, until the writers are done and every record was delivered. Resolves
 * every event record.
 */
async function project(
  streamArn: string,
  delivery: Delivery,
  writing: () => boolean,
  handle: (batch: unknown[]) => Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }>,
): Promise<_Record[]> {
  const delivered = new Set<string>();
  for (let round = 0; ; round++) {
    const last = !writing();
    const records = insertsOnly(await readStreamRecords(streamArn));
    const fresh = records.filter((record) => !delivered.has(String(record.dynamodb?.SequenceNumber)));
    for (const record of fresh) delivered.add(String(record.dynamodb?.SequenceNumber));
    if (fresh.length > 0) await deliver(fresh, { ...delivery, seed: delivery.seed + round }, handle);
    else if (last) return records;
    else await new Promise((resolve) => setTimeout(resolve, 5)); // the next poll, as a poller's interval
  }
}

// At DynamoDB's 100 items a transaction. An append's own items are its commits (one, or two when its events
// are too large together for one item) and the idempotency sentinel, when it has one; the rest are inline
// rows: first an outbox projection's (its row and one message per event, which fill the transaction), then
// `rows` projections of one row each, whose fate is the point. The events' count brings the total the
// transaction would hold to 99, 100 or 101 items. What is sent is what is counted: a projection's rows go
// into the transaction when they fit, and are deferred for `limits` only when they do not; the transaction
// never holds more than 100 items.
const atTheLimit = fc
  .record({
    total: fc.constantFrom(99, 100, 101),
    rows: fc.integer({ min: 1, max: 3 }),
    idempotent: fc.boolean(),
    expected: fc.boolean(),
    split: fc.boolean(),
  })
  .map(({ total, rows, idempotent, expected, split }) => {
    const own = (split ? 2 : 1) + (idempotent ? 1 : 0);
    // The outbox projection writes its row and a message per event.
    return { rows, idempotent, expected, split, own, count: total - rows - own - 1 };
  });

/** `bytes` of seeded noise, base64: gzip and brotli barely shrink it, so its size is known stored. */
function incompressible(seed: string, bytes: number): string {
  const chunks: Buffer[] = [];
  for (let n = 0; chunks.length * 32 < bytes; n++) chunks.push(createHash('sha256').update(`${seed}#${n}`).digest());
  return Buffer.concat(chunks).subarray(0, bytes).toString('base64');
}

test('an append with inline rows at the limits (99, 100, 101 items) sends the rows that fit and defers only those that do not', async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'inline-limit-events');
  const outbox = await createTestTable(client, outboxTableDefinition, 'inline-limit-outbox');
  const counted = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
  const requests = countRequests(counted);
  const sent: Array<{ items: number; commits: number }> = [];
  counted.middlewareStack.add(
    (next, context) => async (args) => {
      const items = (args as { input?: { TransactItems?: Array<{ Put?: { Item?: Record<string, unknown> } }> } }).input?.TransactItems;
      if (context.commandName === 'TransactWriteItemsCommand' && items !== undefined) {
        sent.push({ items: items.length, commits: items.filter((item) => item.Put?.Item?.['_df'] !== undefined).length });
      }
      return next(args);
    },
    { step: 'initialize', name: 'transactionSizes' },
  );
  try {
    await fc.assert(
      fc.asyncProperty(atTheLimit, async ({ count, rows, idempotent, expected, split, own }) => {
        const name = `L${++cases}x${Date.now().toString(36)}`;
        const stream = ledgerStream(counted, events.name, 'A');
        const filling = accountsProjection(stream, accountModel(counted, viewsTable, `${name}Filling`), { revision: false, outbox: outbox.name });
        const projections = Array.from({ length: rows }, (_, index) =>
          accountsProjection(stream, accountModel(counted, viewsTable, `${name}R${index}`), { revision: false }),
        );
        const id = `${name}-x`;
        const deposit = (memo?: string) => ({ type: 'Deposited' as const, data: { owner: 'a', amount: 1, ...(memo === undefined ? {} : { memo }) } });
        // Split: the first two events hold about 225 KB each stored, so they can't share an item: one commit
        // holds the first, another the second and the rest.
        const appending = Array.from({ length: count }, (_, index) =>
          deposit(split && index < 2 ? incompressible(`${name}-${index}`, 225_000) : undefined),
        );
        // The rows follow the stream (written inline with its first event), so they can be folded inline again.
        if (expected) await stream.append({ id }, [deposit()], { inline: [filling, ...projections] });
        requests.reset();
        sent.length = 0;
        const appended = await stream.append({ id }, appending, {
          inline: [filling, ...projections],
          ...(expected ? { expectedVersion: 1 } : {}),
          ...(idempotent ? { idempotencyKey: `${name}-key` } : {}),
        });
        const filled = own + 1 + count;
        const fitting = Math.max(0, Math.min(rows, 100 - filled));
        expect(appended.inline?.applied.map((entry) => entry.projection)).toEqual(
          [filling, ...projections.slice(0, fitting)].map((projection) => projection.name),
        );
        expect(appended.inline?.deferred).toEqual(
          projections.slice(fitting).map((projection) => ({ projection: projection.name, reason: 'limits' })),
        );
        // One transaction, of the append's commits (and sentinel) and the rows that fit.
        expect(sent).toEqual([{ items: filled + fitting, commits: split ? 2 : 1 }]);
        expect(requests.count('TransactWriteItemsCommand')).toBe(1);
      }),
      propertySettings(16),
    );
  } finally {
    counted.destroy();
  }
}, 600_000);

import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import {
  DynamoRequestError,
  ValidationError,
  eventsTableDefinition,
  type AnyProjection,
  type AppliedOutcome,
  type MultiSourceRowOutcome,
  type RowOutcome,
} from 'dynafold';
import type { InlineResult } from 'dynafold/types';
import { processBatch } from 'dynafold/lambda';
import { outboxTableDefinition } from 'dynafold/outbox';
import { sdkError } from '../../chaos/faults';
import { createTestTable, localConfig, testClient } from '../support/dynamo';
import {
  Poisoned,
  accountModel,
  accountsProjection,
  foldAccount,
  ledgerStream,
  ownerModel,
  ownersProjection,
  zoneModel,
  zonesProjection,
  type LedgerEvent,
} from '../support/ledger';
import { createViewsTable } from '../support/ledger-case';
import { expectOwnerRows, expectZoneRows, withoutTimes } from '../support/ledger-truth';
import { insertsOnly, readStreamRecords } from '../support/stream-records';

// An append's `inline` option writes projections' rows in the append's transaction when it can, and
// leaves them to the projector otherwise; the projector's delivery of the same records converges on the
// same rows through their checkpoints.
const client = testClient();
let eventsTable: string;
let streamArn: string;
let viewsTable: string;
let outboxTable: string;
afterAll(() => client.destroy());

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'inline-events');
  eventsTable = events.name;
  streamArn = events.streamArn as string;
  viewsTable = await createViewsTable(client);
  outboxTable = (await createTestTable(client, outboxTableDefinition, 'inline-outbox')).name;
});

let tests = 0;
/** Names no other test of the file uses: model names and stream ids. */
function fresh() {
  const prefix = `t${++tests}`;
  return { model: (name: string) => `${prefix}${name}`, id: (id: string) => `${prefix}-${id}` };
}

const deposit = (owner: string, amount: number, zone?: string) => ({
  type: 'Deposited' as const,
  data: { owner, amount, ...(zone === undefined ? {} : { zone }) },
});

/** The event INSERT records of the given instances (`<stream>#<id>`), as the events table's stream has them. */
async function recordsOf(...instances: string[]): Promise<_Record[]> {
  return insertsOnly(await readStreamRecords(streamArn)).filter((record) => instances.includes(String(record.dynamodb?.NewImage?.['pk']?.S)));
}

/** Delivers the records to the projections at once; resolves each projection's row outcomes. */
async function delivered(projections: Record<string, AnyProjection>, records: ReadonlyArray<_Record>) {
  const result = await processBatch(records, { projections, source: 'lambda' });
  expect(result.response.batchItemFailures).toEqual([]);
  return (name: string) => (result.outcomes[name] ?? []) as ReadonlyArray<RowOutcome | MultiSourceRowOutcome>;
}

/** What the outcomes applied, as `<stream><version>`; a row that did not apply is `failed` or `parked`. */
function appliedBy(outcomes: ReadonlyArray<RowOutcome | MultiSourceRowOutcome>): string[] {
  return outcomes.flatMap((outcome) =>
    outcome.status === 'applied' ? outcome.applied.map((event) => `${event.streamName}${event.version}`) : [outcome.status],
  );
}

/** An inline result with the applied projections by name only. */
function summary(inline: InlineResult | undefined) {
  return { applied: inline?.applied.map((entry) => entry.projection), deferred: inline?.deferred };
}

function versions(events: ReadonlyArray<{ readonly version: number }>): number[] {
  return events.map((event) => event.version);
}

async function expectAccount(model: ReturnType<typeof accountModel>, stream: ReturnType<typeof ledgerStream>, id: string) {
  const truth = foldAccount(id, (await stream.read({ id })) as LedgerEvent[]);
  const row = await model.get({ id }, { consistent: true, includeRemoved: true });
  expect(row && withoutTimes(row)).toEqual(truth.row === undefined ? undefined : { ...truth.row, ...(truth.removed ? { removed: true } : {}) });
}

test('an inline-applied append leaves the row equal to the fold, and the delivery of its records finds them alreadyApplied', async () => {
  const names = fresh();
  const a = ledgerStream(client, eventsTable, 'A');
  const model = accountModel(client, viewsTable, names.model('Account'));
  const accounts = accountsProjection(a, model, { revision: true });
  const id = names.id('x');

  const first = await a.append({ id }, [{ type: 'Opened', data: { owner: 'a' } }, deposit('a', 5)], { inline: [accounts] });
  expect(summary(first.inline)).toEqual({ applied: [accounts.name], deferred: [] });
  await expectAccount(model, a, id);
  const second = await a.append({ id }, [deposit('a', 3), { type: 'Skipped', data: { owner: 'a' } }, deposit('a', 1)], { inline: [accounts] });
  expect(summary(second.inline)).toEqual({ applied: [accounts.name], deferred: [] });
  // The skipped event is not applied: a delivery decides it again (and skips it).
  expect(versions(second.inline?.applied[0]?.events ?? [])).toEqual([3, 5]);
  await expectAccount(model, a, id);

  const outcomes = (await delivered({ accounts }, await recordsOf(`A#${id}`)))('accounts');
  expect(outcomes).toHaveLength(1);
  const outcome = outcomes[0] as AppliedOutcome;
  expect({ status: outcome.status, applied: versions(outcome.applied), alreadyApplied: versions(outcome.alreadyApplied) }).toEqual({
    status: 'applied',
    applied: [],
    alreadyApplied: [1, 2, 3, 4, 5],
  });
  expect(outcome.version).toBe(5);
  await expectAccount(model, a, id);
});

test('a row behind the stream is left to the projector, and applies inline again once the projector caught it up', async () => {
  const names = fresh();
  const a = ledgerStream(client, eventsTable, 'A');
  const model = accountModel(client, viewsTable, names.model('Account'));
  const accounts = accountsProjection(a, model, { revision: false });
  const id = names.id('x');

  await a.append({ id }, [deposit('a', 2)]);
  const behind = await a.append({ id }, [deposit('a', 4)], { inline: [accounts] });
  expect(summary(behind.inline)).toEqual({ applied: [], deferred: [{ projection: accounts.name, reason: 'behind' }] });
  expect(await model.get({ id }, { consistent: true })).toBeUndefined();

  expect(appliedBy((await delivered({ accounts }, await recordsOf(`A#${id}`)))('accounts'))).toEqual(['A1', 'A2']);
  const caughtUp = await a.append({ id }, [deposit('a', 8)], { inline: [accounts] });
  expect(summary(caughtUp.inline).applied).toEqual([accounts.name]);
  await expectAccount(model, a, id);
});

test('event-keyed and multi-source rows apply inline where their checkpoint is at the previous version', async () => {
  const names = fresh();
  const b = ledgerStream(client, eventsTable, 'B');
  const a = ledgerStream(client, eventsTable, 'A');
  const zones = zonesProjection(b, zoneModel(client, viewsTable, names.model('Zone')));
  const owners = ownersProjection(a, b, ownerModel(client, viewsTable, names.model('Owner')), {});
  const id = names.id('z');
  const owner = names.id('o');

  // New rows of a new stream instance: nothing came before.
  const first = await b.append({ id }, [deposit(owner, 1, 'a'), deposit(owner, 2, 'b')], { inline: [zones, owners] });
  expect(summary(first.inline)).toEqual({ applied: [zones.name, owners.name], deferred: [] });
  // Zone a's checkpoint is at version 1: version 2 went to zone b, and only a read of the stream would
  // tell, so the zone is left to the projector. The owner row took version 2.
  const second = await b.append({ id }, [deposit(owner, 4, 'a')], { inline: [zones, owners] });
  expect(summary(second.inline)).toEqual({ applied: [owners.name], deferred: [{ projection: zones.name, reason: 'behind' }] });
  const third = await a.append({ id }, [deposit(owner, 8)], { inline: [owners] });
  expect(summary(third.inline).applied).toEqual([owners.name]);

  const records = await recordsOf(`A#${id}`, `B#${id}`);
  const outcomes = await delivered({ zones, owners }, records);
  expect(appliedBy(outcomes('owners'))).toEqual([]);
  expect(appliedBy(outcomes('zones'))).toEqual(['B3']);
  const history = new Map([
    [`A#${id}`, (await a.read({ id })) as LedgerEvent[]],
    [`B#${id}`, (await b.read({ id })) as LedgerEvent[]],
  ]);
  await expectZoneRows(zoneModel(client, viewsTable, names.model('Zone')), history);
  await expectOwnerRows(ownerModel(client, viewsTable, names.model('Owner')), history);
});

test("an outbox's messages go in the append's transaction; a transaction too large leaves the rows to the projector", async () => {
  const names = fresh();
  const a = ledgerStream(client, eventsTable, 'A');
  const model = accountModel(client, viewsTable, names.model('Account'));
  const withOutbox = accountsProjection(a, model, { revision: true, outbox: outboxTable });
  const plainModel = accountModel(client, viewsTable, names.model('Plain'));
  const plain = accountsProjection(a, plainModel, { revision: false });
  const id = names.id('x');

  const small = await a.append({ id }, [deposit('a', 1), deposit('a', 2)], { inline: [withOutbox, plain] });
  expect(summary(small.inline)).toEqual({ applied: [withOutbox.name, plain.name], deferred: [] });
  expect(await messagesOf(withOutbox.name)).toEqual([`A#${id}#1`, `A#${id}#2`]);

  // 99 events are one commit; with the row and 99 messages, 101 items: over DynamoDB's 100. The plain row
  // still fits (the commit and the row).
  const large = await a.append(
    { id },
    Array.from({ length: 99 }, (_, n) => deposit('a', n)),
    { inline: [withOutbox, plain] },
  );
  expect(summary(large.inline)).toEqual({ applied: [plain.name], deferred: [{ projection: withOutbox.name, reason: 'limits' }] });
  // The projector catches the outbox's row up (versions 3 to 101), so it can apply inline again.
  expect(appliedBy((await delivered({ withOutbox }, await recordsOf(`A#${id}`)))('withOutbox'))).toEqual(
    Array.from({ length: 99 }, (_, n) => `A${n + 3}`),
  );
  // 98 events: the commit, the row and 98 messages fill the transaction to exactly 100 items, leaving no
  // room for the plain row.
  const full = await a.append(
    { id },
    Array.from({ length: 98 }, () => deposit('a', 1)),
    { inline: [withOutbox, plain] },
  );
  expect(summary(full.inline)).toEqual({ applied: [withOutbox.name], deferred: [{ projection: plain.name, reason: 'limits' }] });

  const outcomes = await delivered({ withOutbox, plain }, await recordsOf(`A#${id}`));
  expect(appliedBy(outcomes('withOutbox'))).toEqual([]);
  expect(appliedBy(outcomes('plain'))).toEqual(Array.from({ length: 98 }, (_, n) => `A${n + 102}`));
  await expectAccount(model, a, id);
  await expectAccount(plainModel, a, id);
  // One message per applied event, inline or not.
  expect((await messagesOf(withOutbox.name)).sort()).toEqual(Array.from({ length: 199 }, (_, n) => `A#${id}#${n + 1}`).sort());
});

test('a row the projector moved between the read and the transaction: the append goes again without it, its events written once', async () => {
  const names = fresh();
  const racing = new DynamoDBClient(localConfig());
  try {
    const a = ledgerStream(racing, eventsTable, 'A');
    const b = ledgerStream(client, eventsTable, 'B');
    const model = ownerModel(client, viewsTable, names.model('Owner'));
    const owners = ownersProjection(ledgerStream(client, eventsTable, 'A'), b, model, {});
    const id = names.id('x');
    const owner = names.id('o');
    expect(summary((await a.append({ id }, [deposit(owner, 1)], { inline: [owners] })).inline).applied).toEqual([owners.name]);
    const { events: fromB } = await b.append({ id }, [deposit(owner, 10)]);

    // Right before the next append's transaction, the projector applies B's event to the same row (a new revision).
    let raced = 0;
    racing.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName?.startsWith('TransactWrite') === true && raced++ === 0) await owners.applyBatch(fromB as never);
        return next(args);
      },
      { step: 'initialize', name: 'raceTheRow' },
    );
    const appended = await a.append({ id }, [deposit(owner, 2)], { inline: [owners] });
    expect(raced).toBe(2); // the transaction, then the append again without the row
    expect(summary(appended.inline)).toEqual({ applied: [], deferred: [{ projection: owners.name, reason: 'conflict' }] });
    expect(versions(await a.read({ id }))).toEqual([1, 2]);

    const outcomes = await delivered({ owners }, await recordsOf(`A#${id}`, `B#${id}`));
    expect(appliedBy(outcomes('owners'))).toEqual(['A2']);
    await expectOwnerRows(
      model,
      new Map([
        [`A#${id}`, (await a.read({ id })) as LedgerEvent[]],
        [`B#${id}`, (await b.read({ id })) as LedgerEvent[]],
      ]),
    );
  } finally {
    racing.destroy();
  }
});

test('a transaction DynamoDB refuses as a whole goes again without the rows: the append never fails for them', async () => {
  const names = fresh();
  const refusing = new DynamoDBClient(localConfig());
  try {
    const a = ledgerStream(refusing, eventsTable, 'A');
    const accounts = accountsProjection(ledgerStream(client, eventsTable, 'A'), accountModel(client, viewsTable, names.model('Account')), {
      revision: false,
    });
    const id = names.id('x');
    let sent = 0;
    refusing.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName?.startsWith('TransactWrite') === true && sent++ === 0) throw sdkError('ValidationException', 400);
        return next(args);
      },
      { step: 'initialize', name: 'refuseOnce' },
    );
    const appended = await a.append({ id }, [deposit('a', 1)], { inline: [accounts] });
    expect(sent).toBe(2);
    expect(appended.inline?.deferred).toEqual([{ projection: accounts.name, reason: 'failed', error: expect.any(DynamoRequestError) }]);
    expect(versions(await a.read({ id }))).toEqual([1]);
  } finally {
    refusing.destroy();
  }
});

test('a failing evolve or a parked row never fails the append: the projector handles them as usual', async () => {
  const names = fresh();
  const a = ledgerStream(client, eventsTable, 'A');
  const model = accountModel(client, viewsTable, names.model('Account'));
  const accounts = accountsProjection(a, model, {
    revision: false,
    poison: { park: { afterAttempts: 1 } },
    isPoison: (event) => event.data.amount === 13,
  });
  const id = names.id('x');

  const failing = await a.append({ id }, [deposit('a', 13)], { inline: [accounts] });
  expect(failing.inline?.deferred).toEqual([{ projection: accounts.name, reason: 'failed', error: expect.any(Poisoned) }]);
  expect(appliedBy((await delivered({ accounts }, await recordsOf(`A#${id}`)))('accounts'))).toEqual(['parked']);
  const parked = await a.append({ id }, [deposit('a', 1)], { inline: [accounts] });
  expect(parked.inline?.deferred).toEqual([{ projection: accounts.name, reason: 'parked' }]);
  expect(versions(await a.read({ id }))).toEqual([1, 2]);
});

test('execute passes inline projections to its append; an idempotent repeat reports them as duplicates; bad lists are refused', async () => {
  const names = fresh();
  const a = ledgerStream(client, eventsTable, 'A');
  const b = ledgerStream(client, eventsTable, 'B');
  const model = accountModel(client, viewsTable, names.model('Account'));
  const accounts = accountsProjection(a, model, { revision: false });
  const id = names.id('x');

  const decider = { initial: 0, evolve: (count: number) => count + 1, decide: () => [deposit('a', 7)] };
  const executed = await a.execute({ id }, decider, { inline: [accounts], idempotencyKey: 'k' });
  expect(summary(executed.inline)).toEqual({ applied: [accounts.name], deferred: [] });
  const repeated = await a.execute({ id }, decider, { inline: [accounts], idempotencyKey: 'k' });
  expect(summary(repeated.inline)).toEqual({ applied: [], deferred: [{ projection: accounts.name, reason: 'duplicate' }] });
  expect(versions(await a.read({ id }))).toEqual([1]);
  await expectAccount(model, a, id);

  const zones = zonesProjection(b, zoneModel(client, viewsTable, names.model('Zone')));
  await expect(a.append({ id }, [deposit('a', 1)], { inline: [zones] })).rejects.toThrow(ValidationError);
  await expect(a.append({ id }, [deposit('a', 1)], { inline: [accounts, accounts] })).rejects.toThrow(/listed twice/);
  expect(versions(await a.read({ id }))).toEqual([1]);
});

/** The ids of a projection's outbox messages. */
async function messagesOf(projection: string): Promise<string[]> {
  const page = await client.send(new ScanCommand({ TableName: outboxTable, ConsistentRead: true }));
  return (page.Items ?? []).filter((item) => item['_dfOutbox']?.S === projection).map((item) => String(item['id']?.S));
}

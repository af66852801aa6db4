import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import {
  ConcurrentModificationError,
  DynamoRequestError,
  ValidationError,
  eventsTableDefinition,
  lambdaHandler,
  MultiSourceProjection,
  readModelTableDefinition,
  type ParkedRow,
} from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { outboxTableDefinition } from 'dynafold/outbox';
import { ChangeFeedConsumer, MemoryCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { injectFaults } from '../../chaos/faults';
import { streamsClient, localFeed } from '../feed/support';
import { RowAttributes } from '../../lib/read-model/read-model-keys';
import { createTestTable, localConfig, testClient } from '../support/dynamo';
import {
  accountModel,
  accountsProjection,
  eventKey,
  ledgerStream,
  ownerModel,
  ownersProjection,
  zoneModel,
  zonesProjection,
  Poisoned,
  type LedgerEvent,
  type LedgerStream,
  type Owner,
} from '../support/ledger';
import { outboxMessages } from '../support/ledger-case';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../support/stream-records';
import { DynamoDBClient, UpdateTableCommand } from '@aws-sdk/client-dynamodb';

const client = testClient();
afterAll(() => client.destroy());

let events: { name: string; streamArn: string | undefined };
let viewsTable: string;
let models = 0;

beforeAll(async () => {
  events = await createTestTable(client, eventsTableDefinition, 'parking-events');
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [accountModel(client, name, 'Any')]), 'parking-views')).name;
});

/** A deployed bug: `evolve` chokes on deposits of 13 until the fix is "deployed". */
function poisonSwitch() {
  const state = { fixed: false };
  return { state, isPoison: (event: LedgerEvent) => !state.fixed && event.type === 'Deposited' && event.data.amount === 13 };
}

async function recordsOf(...keys: string[]): Promise<_Record[]> {
  const all = insertsOnly(await readStreamRecords(events.streamArn as string));
  return all.filter((record) => keys.some((key) => record.dynamodb?.NewImage?.['pk']?.S === key));
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

test('a poison event parks its row after N failed attempts; the shard moves on, other rows are untouched; retryParked applies every event once, in order', async () => {
  const stream = ledgerStream(client, events.name, 'A');
  const model = accountModel(client, viewsTable, `Parked${++models}`);
  const poison = poisonSwitch();
  const accounts = accountsProjection(stream, model, { revision: false, poison: { park: { afterAttempts: 3 } }, isPoison: poison.isPoison });
  const owner = { owner: 'a' };
  await stream.append({ id: 'poisoned' }, [
    { type: 'Opened', data: owner },
    { type: 'Deposited', data: { ...owner, amount: 13 } },
    { type: 'Deposited', data: { ...owner, amount: 2 } },
  ]);
  await stream.append({ id: 'healthy' }, [
    { type: 'Opened', data: owner },
    { type: 'Deposited', data: { ...owner, amount: 5 } },
  ]);
  const records = (await recordsOf('A#poisoned', 'A#healthy')).map(asLambdaRecord);
  const applied: string[] = [];
  const deliver = async (batch: ReadonlyArray<unknown>) => {
    const result = await processBatch(batch, { projections: { accounts }, source: 'lambda' });
    for (const outcome of result.outcomes.accounts) applied.push(...outcome.applied.map(eventKey));
    return result;
  };

  // Attempts 1 and 2 fail the poisoned row's records (the source retries them); the other row applies.
  for (let attempt = 1; attempt <= 2; attempt++) {
    const result = await deliver(records);
    expect(result.outcomes.accounts.find((outcome) => outcome.key?.['id'] === 'poisoned')).toMatchObject({
      status: 'failed',
      error: expect.any(Poisoned),
    });
    expect(result.response.batchItemFailures).toHaveLength(1);
  }
  expect(await model.get({ id: 'healthy' }, { consistent: true })).toMatchObject({ balance: 5, version: 2 });
  // The third parks it: every record is reported done.
  const third = await deliver(records);
  expect(third.response.batchItemFailures).toEqual([]);
  expect(third.outcomes.accounts.find((outcome) => outcome.key?.['id'] === 'poisoned')).toMatchObject({
    status: 'parked',
    parked: {
      event: { streamName: 'A', streamId: 'poisoned', version: 2, type: 'Deposited' },
      error: { name: 'Poisoned' },
      attempts: 3,
      through: { 'A#poisoned': 3 },
    },
    // Version 1 was written in the first attempt; the others wait for a replay.
    setAside: [expect.objectContaining({ version: 2 }), expect.objectContaining({ version: 3 })],
  });
  // The row kept what came before the poison event (v1, written in the first attempt); later events reach the parked record.
  expect(await model.get({ id: 'poisoned' }, { consistent: true })).toMatchObject({ balance: 0, version: 1 });
  expect(applied).toContain('A#poisoned@1');
  const later = await stream.append({ id: 'poisoned' }, [{ type: 'Deposited', data: { ...owner, amount: 4 } }]);
  const fourth = await deliver((await recordsOf('A#poisoned')).map(asLambdaRecord).slice(-1));
  expect(fourth.response.batchItemFailures).toEqual([]);
  expect(fourth.outcomes.accounts[0]).toMatchObject({
    status: 'parked',
    parked: { through: { 'A#poisoned': later.version } },
    setAside: [expect.objectContaining({ version: later.version })],
  });
  const parked: ParkedRow[] = await collect(accounts.parkedRows());
  expect(parked).toEqual([expect.objectContaining({ key: { id: 'poisoned' }, attempts: 3, through: { 'A#poisoned': 4 } })]);

  // The fix is deployed: one retry applies v2..v4 once, in order, and unparks the row.
  poison.state.fixed = true;
  const [retried] = await accounts.retryParked({ id: 'poisoned' });
  expect(retried).toMatchObject({ status: 'applied', version: 4 });
  applied.push(...(retried?.status === 'applied' ? retried.applied.map(eventKey) : []));
  expect(await model.get({ id: 'poisoned' }, { consistent: true })).toMatchObject({ balance: 19, deposits: 3, version: 4 });
  expect(await collect(accounts.parkedRows())).toEqual([]);
  // A redelivery of everything applies nothing more.
  await deliver((await recordsOf('A#poisoned', 'A#healthy')).map(asLambdaRecord));
  expect(applied.sort()).toEqual(['A#healthy@1', 'A#healthy@2', 'A#poisoned@1', 'A#poisoned@2', 'A#poisoned@3', 'A#poisoned@4']);
});

test('transient failures never count towards parking', async () => {
  const stream = ledgerStream(client, events.name, 'A');
  const faulty = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
  const faults = injectFaults(faulty, { seed: 1, rate: 1, kinds: ['conditional'], readModelTables: [viewsTable] });
  const model = accountModel(faulty, viewsTable, `Transient${++models}`);
  const accounts = accountsProjection(stream, model, { revision: false, poison: { park: { afterAttempts: 1 } } });
  const { events: written } = await stream.append({ id: 'racy' }, [{ type: 'Opened', data: { owner: 'a' } }]);
  for (let attempt = 0; attempt < 3; attempt++) {
    const { outcomes } = await accounts.applyBatch(written);
    expect(outcomes[0]).toMatchObject({ status: 'failed', error: expect.any(ConcurrentModificationError) });
  }
  faults.enabled = false;
  expect(await accountModel(client, viewsTable, model.name).getItem({ id: 'racy' })).toBeUndefined(); // no stub, no count
  expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'applied', version: 1 });
  faulty.destroy();
}, 60_000);

test('a row that never existed keeps its count and parked record in a stub, hidden from reads; skipParked moves past the event and records it', async () => {
  const stream = ledgerStream(client, events.name, 'A');
  const model = accountModel(client, viewsTable, `Stub${++models}`);
  const accounts = accountsProjection(stream, model, {
    revision: true,
    poison: { park: { afterAttempts: 2 } },
    isPoison: (event) => event.type === 'Opened' && event.data.owner === 'x',
  });
  const { events: written } = await stream.append({ id: 'stubbed' }, [{ type: 'Opened', data: { owner: 'x' } }]);
  expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'failed' });
  const stub = await model.getItem({ id: 'stubbed' });
  expect(stub).toMatchObject({ [RowAttributes.stub]: true, [RowAttributes.failures]: { attempts: 1, error: { name: 'Poisoned' } } });
  expect(await model.get({ id: 'stubbed' }, { consistent: true, includeRemoved: true })).toBeUndefined();
  expect((await model.query('primary', { id: 'stubbed' }, { consistent: true, includeRemoved: true })).items).toEqual([]);
  expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'parked' });

  const next = await stream.append({ id: 'stubbed' }, [{ type: 'Deposited', data: { owner: 'x', amount: 7 } }]);
  expect((await accounts.applyBatch(next.events)).outcomes[0]).toMatchObject({ status: 'parked', parked: { through: { 'A#stubbed': 2 } } });
  // On purpose: v1 is skipped (the row records it), v2 is applied onto a row started from `initial`.
  const outcome = await accounts.skipParked({ id: 'stubbed' });
  expect(outcome).toMatchObject({ status: 'applied', version: 2 });
  expect(outcome?.status === 'applied' ? outcome.applied.map((event) => event.version) : []).toEqual([2]);
  expect(await model.get({ id: 'stubbed' }, { consistent: true })).toMatchObject({ owner: '', balance: 7, version: 2 });
  expect(await model.getItem({ id: 'stubbed' })).toMatchObject({
    [RowAttributes.skippedEvents]: [{ event: { version: 1, type: 'Opened' }, error: { name: 'Poisoned' }, skippedAt: expect.any(String) }],
  });
  expect(await collect(accounts.parkedRows())).toEqual([]);
});

test('a multi-source row parks as a whole and records how far each source instance reached; the outbox waits for the retry', async () => {
  const a = ledgerStream(client, events.name, 'A');
  const b = ledgerStream(client, events.name, 'B');
  const outbox = (await createTestTable(client, outboxTableDefinition, 'parking-outbox')).name;
  const poison = poisonSwitch();
  const owners = ownersProjection(a, b, ownerModel(client, viewsTable, `Owner${++models}`), {
    outbox,
    poison: { park: { afterAttempts: 1 } },
    isPoison: poison.isPoison,
  });
  const fromA = await a.append({ id: 'm' }, [
    { type: 'Deposited', data: { owner: 'multi', amount: 1 } },
    { type: 'Deposited', data: { owner: 'multi', amount: 13 } },
  ]);
  const fromB = await b.append({ id: 'm' }, [{ type: 'Deposited', data: { owner: 'multi', amount: 10 } }]);
  const first = await owners.applyBatch([...fromA.events, ...fromB.events]);
  expect(first.outcomes[0]).toMatchObject({ status: 'parked', parked: { event: { streamName: 'A', version: 2 }, through: { 'A#m': 2, 'B#m': 1 } } });
  expect(first.outcomes[0]?.applied.map(eventKey)).toEqual(['A#m@1']);
  const moreB = await b.append({ id: 'm' }, [{ type: 'Deposited', data: { owner: 'multi', amount: 20 } }]);
  expect((await owners.applyBatch(moreB.events)).outcomes[0]).toMatchObject({ status: 'parked', parked: { through: { 'A#m': 2, 'B#m': 2 } } });
  // No message for an event until it is applied: A@1, folded before the poison event, is the only one.
  expect((await outboxMessages(client, outbox)).map((message) => message.id)).toEqual(['A#m#1']);

  poison.state.fixed = true;
  const [retried] = await owners.retryParked();
  expect(retried).toMatchObject({ status: 'applied', sources: { 'A#m': 2, 'B#m': 2 } });
  expect(await ownerModel(client, viewsTable, owners.readModel.name).get({ owner: 'multi' }, { consistent: true })).toMatchObject({
    total: 44,
    events: 4,
  });
  const messages = (await outboxMessages(client, outbox)).map((message) => (message.message as { event: string }).event);
  expect([...messages].sort()).toEqual(['A#m@1', 'A#m@2', 'B#m@1', 'B#m@2']);
});

test('the Lambda handler reports a parked row done, so the shard moves on', async () => {
  const stream = ledgerStream(client, events.name, 'A');
  const accounts = accountsProjection(stream, accountModel(client, viewsTable, `Lambda${++models}`), {
    revision: false,
    poison: { park: { afterAttempts: 1 } },
    isPoison: (event) => event.type === 'Deposited' && event.data.amount === 13,
  });
  await stream.append({ id: 'lambda' }, [{ type: 'Deposited', data: { owner: 'a', amount: 13 } }]);
  const handler = lambdaHandler({ projections: { accounts } });
  const response = await handler({ Records: (await recordsOf('A#lambda')).map(asLambdaRecord) });
  expect(response).toEqual({ batchItemFailures: [] });
  expect(await collect(accounts.parkedRows())).toEqual([expect.objectContaining({ key: { id: 'lambda' }, attempts: 1 })]);
});

test('event-keyed rows park one by one through runChangeFeed: the feed moves on, the zone beside the poisoned one stays live', async () => {
  const table = await createTestTable(client, eventsTableDefinition, 'parking-feed');
  const stream = ledgerStream(client, table.name, 'B');
  const poison = poisonSwitch();
  const zones = zonesProjection(stream, zoneModel(client, viewsTable, `Zone${++models}`), {
    poison: { park: { afterAttempts: 1 } },
    isPoison: poison.isPoison,
  });
  await stream.append({ id: 'z' }, [
    { type: 'Deposited', data: { owner: 'a', amount: 1, zone: 'north' } },
    { type: 'Deposited', data: { owner: 'a', amount: 13, zone: 'south' } },
    { type: 'Deposited', data: { owner: 'a', amount: 2, zone: 'north' } },
    { type: 'Deposited', data: { owner: 'a', amount: 3, zone: 'south' } },
  ]);
  await client.send(new UpdateTableCommand({ TableName: table.name, StreamSpecification: { StreamEnabled: false } }));
  const streams = streamsClient();
  try {
    const feed = new ChangeFeedConsumer({
      ...localFeed,
      streamsClient: streams,
      streamArn: table.streamArn as string,
      checkpoints: new MemoryCheckpointStore(),
      pollIntervalMs: 10,
    });
    await runChangeFeed(feed, { projections: { zones } });
  } finally {
    streams.destroy();
  }
  const model = zoneModel(client, viewsTable, zones.readModel.name);
  expect(await model.get({ id: 'z', zone: 'north' }, { consistent: true })).toMatchObject({ total: 3, count: 2, version: 3 });
  expect(await model.get({ id: 'z', zone: 'south' }, { consistent: true })).toBeUndefined();
  expect(await collect(zones.parkedRows())).toEqual([expect.objectContaining({ key: { id: 'z', zone: 'south' }, through: { 'B#z': 4 } })]);
  poison.state.fixed = true;
  await zones.retryParked();
  expect(await model.get({ id: 'z', zone: 'south' }, { consistent: true })).toMatchObject({ total: 16, count: 2, version: 4 });
});

/** A promise to wait on and the function that settles it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire = () => {};
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

/**
 * Owners whose `evolve` holds one chosen event until released (so a test can interleave two lanes at the
 * point where one has read the row and not yet written it) and chokes on deposits of 13 until fixed.
 */
function heldOwners(a: LedgerStream, b: LedgerStream, name: string) {
  const poison = poisonSwitch();
  const hold = { event: '', reached: signal(), release: signal() };
  const projection = new MultiSourceProjection<{ a: LedgerStream; b: LedgerStream }, ReturnType<typeof ownerModel>, Owner>({
    name,
    readModel: ownerModel(client, viewsTable, name),
    sources: {
      a: { stream: a, key: (_id, event) => ({ owner: event.data.owner }) },
      b: { stream: b, key: (_id, event) => ({ owner: event.data.owner }) },
    },
    initial: (key) => ({ owner: String(key['owner']), total: 0, events: 0, fromA: 0, fromB: 0 }),
    poison: { park: { afterAttempts: 1 } },
    evolve: async (state, event) => {
      if (eventKey(event as LedgerEvent) === hold.event) {
        hold.reached.fire();
        await hold.release.promise;
      }
      if (poison.isPoison(event as LedgerEvent)) throw new Poisoned(eventKey(event as LedgerEvent));
      const from = event.streamName === 'A' ? { fromA: state.fromA + 1 } : { fromB: state.fromB + 1 };
      return { ...state, ...from, total: state.total + ((event.data as { amount?: number }).amount ?? 0), events: state.events + 1 };
    },
  });
  return { projection, poison, hold };
}

test('a lane that read a row before another parked it cannot unpark it with its write: its event waits in the parked record', async () => {
  const a = ledgerStream(client, events.name, 'A');
  const b = ledgerStream(client, events.name, 'B');
  const { projection: owners, poison, hold } = heldOwners(a, b, `Held${++models}`);
  const first = await b.append({ id: 'h' }, [{ type: 'Deposited', data: { owner: 'held', amount: 1 } }]);
  expect((await owners.applyBatch(first.events)).outcomes[0]).toMatchObject({ status: 'applied' });

  const late = await b.append({ id: 'h' }, [{ type: 'Deposited', data: { owner: 'held', amount: 2 } }]);
  hold.event = 'B#h@2';
  const laneB = owners.applyBatch(late.events);
  await hold.reached.promise;
  // While lane B holds the row as it read it, lane A parks it.
  const toxic = await a.append({ id: 'h' }, [{ type: 'Deposited', data: { owner: 'held', amount: 13 } }]);
  expect((await owners.applyBatch(toxic.events)).outcomes[0]).toMatchObject({ status: 'parked', parked: { through: { 'A#h': 1 } } });
  hold.release.fire();
  expect((await laneB).outcomes[0]).toMatchObject({ status: 'parked', applied: [], parked: { through: { 'A#h': 1, 'B#h': 2 } } });
  expect(await collect(owners.parkedRows())).toHaveLength(1);

  poison.state.fixed = true;
  expect(await owners.retryParked()).toMatchObject([{ status: 'applied', sources: { 'A#h': 1, 'B#h': 2 } }]);
  expect(await owners.readModel.get({ owner: 'held' }, { consistent: true })).toMatchObject({ total: 16, events: 3 });
});

test('a lane that wrote part of its events and then failed, after another lane parked the row, sets its failing event aside in the parked record', async () => {
  const a = ledgerStream(client, events.name, 'A');
  const b = ledgerStream(client, events.name, 'B');
  const { projection: owners, poison, hold } = heldOwners(a, b, `Held${++models}`);
  const laneBEvents = (
    await b.append({ id: 'tw' }, [
      { type: 'Deposited', data: { owner: 'twice', amount: 1 } },
      { type: 'Deposited', data: { owner: 'twice', amount: 13 } },
    ])
  ).events;
  // Lane B folds its events: version 1 is written, version 2 throws. Before B reads the row again to count
  // its failure, lane A parks the row on a poison event of its own.
  let laneA: Promise<unknown> | undefined;
  let armed = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (armed && context.commandName === 'GetItemCommand') {
        armed = false;
        const toxic = await a.append({ id: 'tw' }, [{ type: 'Deposited', data: { owner: 'twice', amount: 13 } }]);
        laneA = owners.applyBatch(toxic.events);
        await laneA;
      }
      return next(args);
    },
    { step: 'initialize', name: 'park-before-recount' },
  );
  try {
    hold.event = 'B#tw@2';
    const laneB = owners.applyBatch(laneBEvents);
    await hold.reached.promise;
    armed = true;
    hold.release.fire();
    const outcome = (await laneB).outcomes[0];
    expect(laneA).toBeDefined();
    expect(await laneA).toMatchObject({ outcomes: [{ status: 'parked', parked: { through: { 'A#tw': 1 } } }] });
    // B's failure counts on the parked row, and its failing event is held there with A's.
    expect(outcome).toMatchObject({ status: 'parked', parked: { attempts: 2, through: { 'A#tw': 1, 'B#tw': 2 } } });
  } finally {
    client.middlewareStack.remove('park-before-recount');
  }

  poison.state.fixed = true;
  expect(await owners.retryParked()).toMatchObject([{ status: 'applied', sources: { 'A#tw': 1, 'B#tw': 2 } }]);
  expect(await owners.readModel.get({ owner: 'twice' }, { consistent: true })).toMatchObject({ total: 27, events: 3, fromA: 1, fromB: 2 });
});

test('an event noted on a parked row while retryParked folds it is applied by that retry, not dropped', async () => {
  const a = ledgerStream(client, events.name, 'A');
  const b = ledgerStream(client, events.name, 'B');
  const { projection: owners, poison, hold } = heldOwners(a, b, `Held${++models}`);
  const toxic = await a.append({ id: 'r' }, [{ type: 'Deposited', data: { owner: 'retried', amount: 13 } }]);
  expect((await owners.applyBatch(toxic.events)).outcomes[0]).toMatchObject({ status: 'parked' });

  poison.state.fixed = true;
  hold.event = 'A#r@1';
  const retry = owners.retryParked();
  await hold.reached.promise;
  // The retry has read the parked row; an event reaches it meanwhile and is noted, not applied.
  const meanwhile = await b.append({ id: 'r' }, [{ type: 'Deposited', data: { owner: 'retried', amount: 5 } }]);
  expect((await owners.applyBatch(meanwhile.events)).outcomes[0]).toMatchObject({ status: 'parked', parked: { through: { 'A#r': 1, 'B#r': 1 } } });
  hold.release.fire();
  expect(await retry).toMatchObject([{ status: 'applied', sources: { 'A#r': 1, 'B#r': 1 } }]);
  expect(await owners.readModel.get({ owner: 'retried' }, { consistent: true })).toMatchObject({ total: 18, events: 2 });
  expect(await collect(owners.parkedRows())).toEqual([]);
});

test('retryParked keeps the outcomes of rows replayed before one whose read fails: that row gets a failed outcome and stays parked', async () => {
  const stream = ledgerStream(client, events.name, 'A');
  const faulty = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
  const faults = injectFaults(faulty, { seed: 2, rate: 1, kinds: ['throttle'], commands: ['GetItemCommand'] });
  faults.enabled = false;
  const poison = poisonSwitch();
  const accounts = accountsProjection(stream, accountModel(faulty, viewsTable, `Replayed${++models}`), {
    revision: false,
    poison: { park: { afterAttempts: 1 } },
    // Once the fix is in, the first row replayed turns the faults on: the next row's read is throttled.
    isPoison: (event) => {
      if (poison.state.fixed && event.data.amount === 13) faults.enabled = true;
      return poison.isPoison(event);
    },
  });
  for (const id of ['first', 'second']) {
    const { events: written } = await stream.append({ id }, [{ type: 'Deposited', data: { owner: id, amount: 13 } }]);
    expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'parked' });
  }
  poison.state.fixed = true;
  const outcomes = await accounts.retryParked();
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['applied', 'failed']);
  expect(outcomes[0]?.applied).toHaveLength(1);
  faults.enabled = false;
  expect(await collect(accounts.parkedRows())).toEqual([expect.objectContaining({ key: outcomes[1]?.key })]);
  expect((await accounts.retryParked()).map((outcome) => outcome.status)).toEqual(['applied']);
  faulty.destroy();
});

/** A deployed bug: `evolve` chokes on deposits of these amounts until each is fixed (removed from `bad`). */
function poisonAmounts(...amounts: number[]) {
  const bad = new Set(amounts);
  return { bad, isPoison: (event: LedgerEvent) => event.type === 'Deposited' && bad.has(event.data.amount ?? 0) };
}

async function deposit(stream: LedgerStream, id: string, amounts: ReadonlyArray<number>) {
  return (
    await stream.append(
      { id },
      amounts.map((amount) => ({ type: 'Deposited' as const, data: { owner: id, amount } })),
    )
  ).events;
}

test('a retry that fixes one poison event and fails on the next keeps the row parked on that one, with what reached it, one more attempt counted', async () => {
  const stream = ledgerStream(client, events.name, 'A');
  const model = accountModel(client, viewsTable, `Partial${++models}`);
  const poison = poisonAmounts(13, 17);
  const accounts = accountsProjection(stream, model, { revision: false, poison: { park: { afterAttempts: 2 } }, isPoison: poison.isPoison });
  const written = await deposit(stream, 'partial', [1, 13, 2, 17, 3, 4]);
  const applied: string[] = [];
  const note = (outcomes: ReadonlyArray<{ applied: ReadonlyArray<LedgerEvent> }>) =>
    outcomes.forEach((o) => applied.push(...o.applied.map(eventKey)));
  note((await accounts.applyBatch(written)).outcomes);
  const parking = await accounts.applyBatch(written);
  note(parking.outcomes);
  expect(parking.outcomes[0]).toMatchObject({ status: 'parked', parked: { event: { version: 2 }, attempts: 2, through: { 'A#partial': 6 } } });

  poison.bad.delete(13);
  const partial = await accounts.retryParked({ id: 'partial' });
  note(partial);
  expect(partial).toMatchObject([{ status: 'failed', error: expect.any(Poisoned) }]);
  expect(partial[0]?.applied.map((event) => event.version)).toEqual([2, 3]);
  expect(await model.get({ id: 'partial' }, { consistent: true })).toMatchObject({ balance: 16, version: 3 });
  expect(await collect(accounts.parkedRows())).toEqual([
    expect.objectContaining({ event: expect.objectContaining({ version: 4 }), attempts: 3, through: { 'A#partial': 6 } }),
  ]);
  // A redelivery meanwhile is set aside, as for any parked row.
  expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'parked' });

  poison.bad.delete(17);
  const fixed = await accounts.retryParked({ id: 'partial' });
  note(fixed);
  expect(fixed).toMatchObject([{ status: 'applied', version: 6 }]);
  expect(await model.get({ id: 'partial' }, { consistent: true })).toMatchObject({ balance: 40, deposits: 6, version: 6 });
  expect(await collect(accounts.parkedRows())).toEqual([]);
  expect(applied.sort()).toEqual([1, 2, 3, 4, 5, 6].map((version) => `A#partial@${version}`));
});

test('skipParked saves its skip when the next event fails too: the row stays parked on that one, and the next skip moves past it', async () => {
  const stream = ledgerStream(client, events.name, 'A');
  const model = accountModel(client, viewsTable, `Twice${++models}`);
  const accounts = accountsProjection(stream, model, {
    revision: true,
    poison: { park: { afterAttempts: 1 } },
    isPoison: poisonAmounts(21, 22).isPoison,
  });
  const written = await deposit(stream, 'twice', [1, 21, 22, 5]);
  expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'parked', parked: { event: { version: 2 } } });

  const first = await accounts.skipParked({ id: 'twice' });
  expect(first).toMatchObject({ status: 'failed', error: expect.any(Poisoned), applied: [] });
  const [parked] = await collect(accounts.parkedRows());
  expect(parked).toMatchObject({ event: { version: 3 }, error: { name: 'Poisoned', message: expect.stringContaining('@3') }, attempts: 2 });
  expect(await model.getItem({ id: 'twice' })).toMatchObject({ version: 2, [RowAttributes.skippedEvents]: [{ event: { version: 2 } }] });

  const second = await accounts.skipParked({ id: 'twice' });
  expect(second).toMatchObject({ status: 'applied', version: 4 });
  expect(await model.get({ id: 'twice' }, { consistent: true })).toMatchObject({ balance: 6, deposits: 2, version: 4 });
  const item = await model.getItem({ id: 'twice' });
  expect((item?.[RowAttributes.skippedEvents] as Array<{ event: { version: number } }>).map((skipped) => skipped.event.version)).toEqual([2, 3]);
  expect(await collect(accounts.parkedRows())).toEqual([]);
});

// The replay's fold chokes on v3 after skipping v2 and writes the skip; then a fault keeps the failure from
// being counted (the re-read is throttled), or only seems to (every write's answer is lost, the SDK gives up
// at once: each write reads its row and finds its own write, so the skip and the failure count).
test.each([
  ['the re-read that counts the failure is throttled', 'reread', { kinds: ['throttle'], commands: ['GetItemCommand'] }, DynamoRequestError],
  ["every write's answer is lost", 'unanswered', { kinds: ['lostResponse'] }, Poisoned],
] as const)(
  'a skip saved by a replay that fails before the failure is counted (%s) leaves the row parked on the event that failed, not on the skipped one',
  async (_, id, fault, failure) => {
    const stream = ledgerStream(client, events.name, 'A');
    const faulty = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
    const faults = injectFaults(faulty, { seed: 3, rate: 1, readModelTables: [viewsTable], ...fault });
    faults.enabled = false;
    const poison = poisonAmounts(21, 22);
    const model = accountModel(faulty, viewsTable, `SkipUncounted${++models}`);
    const accounts = accountsProjection(stream, model, {
      revision: true,
      poison: { park: { afterAttempts: 1 } },
      isPoison: (event) => {
        if (event.version === 3 && poison.isPoison(event)) faults.enabled = true;
        return poison.isPoison(event);
      },
    });
    const written = await deposit(stream, id, [1, 21, 22, 5]);
    expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'parked', parked: { event: { version: 2 } } });
    const failing = (await collect(accounts.parkedRows()))[0]?.event;

    const skip = await accounts.skipParked({ id }, { event: failing });
    faults.enabled = false;
    expect(skip).toMatchObject({ status: 'failed', error: expect.any(failure) });
    expect(await model.getItem({ id })).toMatchObject({ version: 2, [RowAttributes.skippedEvents]: [{ event: { version: 2 } }] });
    // The skip is saved: the row is parked on v3, which still fails, so a caller retrying the skip of v2 is told it is past it.
    const [parked] = await collect(accounts.parkedRows());
    expect(parked).toMatchObject({ event: { version: 3 }, error: { name: 'Poisoned', message: expect.stringContaining('@3') } });
    await expect(accounts.skipParked({ id }, { event: failing })).rejects.toThrow(ValidationError);
    expect(await accounts.skipParked({ id })).toMatchObject({ status: 'applied', version: 4 });
    expect(await collect(accounts.parkedRows())).toEqual([]);
    faulty.destroy();
  },
);

test("a multi-source row parks after afterAttempts failures of one source although another source's events are applied in between", async () => {
  const a = ledgerStream(client, events.name, 'A');
  const b = ledgerStream(client, events.name, 'B');
  const poison = poisonSwitch();
  const owners = ownersProjection(a, b, ownerModel(client, viewsTable, `Busy${++models}`), {
    poison: { park: { afterAttempts: 2 } },
    isPoison: poison.isPoison,
  });
  const toxic = (await a.append({ id: 'p' }, [{ type: 'Deposited', data: { owner: 'busy', amount: 13 } }])).events;
  const statuses: string[] = [];
  for (let round = 0; round < 4 && !statuses.includes('parked'); round++) {
    statuses.push(String((await owners.applyBatch(toxic)).outcomes[0]?.status));
    const fromB = (await b.append({ id: 'p' }, [{ type: 'Deposited', data: { owner: 'busy', amount: 1 } }])).events;
    statuses.push(String((await owners.applyBatch(fromB)).outcomes[0]?.status));
  }
  expect(statuses).toEqual(['failed', 'applied', 'parked', 'parked']);
  expect(await collect(owners.parkedRows())).toEqual([expect.objectContaining({ attempts: 2, through: { 'A#p': 1, 'B#p': 2 } })]);

  poison.state.fixed = true;
  expect(await owners.retryParked()).toMatchObject([{ status: 'applied', sources: { 'A#p': 1, 'B#p': 2 } }]);
  expect(await owners.readModel.get({ owner: 'busy' }, { consistent: true })).toMatchObject({ total: 15, events: 3, fromA: 1, fromB: 2 });
});

test('skipParked refuses an event the parked row does not hold, and the parked operations refuse a key that is not one', async () => {
  const stream = ledgerStream(client, events.name, 'A');
  const model = accountModel(client, viewsTable, `Refuse${++models}`);
  const accounts = accountsProjection(stream, model, {
    revision: false,
    poison: { park: { afterAttempts: 1 } },
    isPoison: poisonAmounts(13).isPoison,
  });
  const written = await deposit(stream, 'refuse', [1, 13, 2]);
  await deposit(stream, 'other', [1]);
  expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'parked' });
  const ref = { streamName: 'A', streamId: 'refuse', type: 'Deposited' };
  for (const event of [
    { ...ref, version: 1 }, // applied already
    { ...ref, version: 4 }, // never reached the row
    { ...ref, streamId: 'other', version: 1 }, // another instance
    { ...ref, streamName: 'B', version: 2 }, // another stream
    { ...ref, version: 2, type: 'Opened' }, // not what version 2 is
  ]) {
    await expect(accounts.skipParked({ id: 'refuse' }, { event })).rejects.toThrow(ValidationError);
  }
  const before = await model.getItem({ id: 'refuse' });
  expect(before?.[RowAttributes.skippedEvents]).toBeUndefined();
  expect(await collect(accounts.parkedRows())).toEqual([expect.objectContaining({ attempts: 1, event: expect.objectContaining({ version: 2 }) })]);

  for (const key of [null, 'refuse', { nope: 1 }]) {
    await expect(accounts.retryParked(key as never)).rejects.toThrow(ValidationError);
    await expect(accounts.skipParked(key as never)).rejects.toThrow(ValidationError);
  }
  expect(await accounts.skipParked({ id: 'refuse' }, { event: { ...ref, version: 2 } })).toMatchObject({ status: 'applied', version: 3 });
});

/** A logger that keeps what it is told, as `level message`. */
function memoryLogger() {
  const lines: string[] = [];
  const at = (level: string) => (message: unknown) => lines.push(`${level} ${String(message)}`);
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

test("parking logs to the logger given to processBatch or lambdaHandler as well as the projection's, and a replayed row is logged (info)", async () => {
  const stream = ledgerStream(client, events.name, 'A');
  const own = memoryLogger();
  const poison = poisonSwitch();
  const accounts = accountsProjection(stream, accountModel(client, viewsTable, `Logged${++models}`), {
    revision: false,
    poison: { park: { afterAttempts: 2 } },
    isPoison: poison.isPoison,
    logger: own.logger,
  });
  await stream.append({ id: 'logged' }, [{ type: 'Deposited', data: { owner: 'a', amount: 13 } }]);
  const records = (await recordsOf('A#logged')).map(asLambdaRecord);
  const batch = memoryLogger();
  await processBatch(records, { projections: [accounts], source: 'lambda', logger: batch.logger });
  const handler = memoryLogger();
  await lambdaHandler({ projections: [accounts], logger: handler.logger })({ Records: records });
  const counted = 'warn row failed; the attempt counts towards parking it';
  const parked = 'error row parked: its events are set aside until retryParked or skipParked';
  expect(batch.lines).toEqual([counted, 'warn row failed; its records are reported for a redelivery']);
  expect(handler.lines).toEqual([parked]);
  expect(own.lines).toEqual([counted, parked]);

  poison.state.fixed = true;
  expect(await accounts.retryParked()).toMatchObject([{ status: 'applied' }]);
  expect(own.lines).toEqual([counted, parked, 'info parked row replayed']);
});

test('a rebuild of a parked row keeps it parked, with its failed attempts and what reached it', async () => {
  const stream = ledgerStream(client, events.name, 'A');
  const model = accountModel(client, viewsTable, `Rebuilt${++models}`);
  const poison = poisonAmounts(13);
  const accounts = accountsProjection(stream, model, { revision: true, poison: { park: { afterAttempts: 1 } }, isPoison: poison.isPoison });
  const written = await deposit(stream, 'rebuilt', [1, 13, 2]);
  expect((await accounts.applyBatch(written)).outcomes[0]).toMatchObject({ status: 'parked' });
  await accounts.rebuild({ id: 'rebuilt' });
  expect(await collect(accounts.parkedRows())).toEqual([expect.objectContaining({ attempts: 1, through: { 'A#rebuilt': 3 } })]);
  poison.bad.clear();
  expect(await accounts.retryParked()).toMatchObject([{ status: 'applied', version: 3 }]);
  expect(await model.get({ id: 'rebuilt' }, { consistent: true })).toMatchObject({ balance: 16, version: 3 });
});

test("skipParked on a multi-source row saves its skip when another source's held event fails too: the row stays parked on that one", async () => {
  const a = ledgerStream(client, events.name, 'A');
  const b = ledgerStream(client, events.name, 'B');
  const owners = ownersProjection(a, b, ownerModel(client, viewsTable, `SkipBoth${++models}`), {
    poison: { park: { afterAttempts: 1 } },
    isPoison: poisonAmounts(21, 22).isPoison,
  });
  const fromA = (await a.append({ id: 's' }, [{ type: 'Deposited', data: { owner: 'both', amount: 21 } }])).events;
  expect((await owners.applyBatch(fromA)).outcomes[0]).toMatchObject({ status: 'parked' });
  const fromB = (await b.append({ id: 's' }, [{ type: 'Deposited', data: { owner: 'both', amount: 22 } }])).events;
  expect((await owners.applyBatch(fromB)).outcomes[0]).toMatchObject({ status: 'parked' });

  // The skip of A's event is saved although B's held event fails in the same replay.
  expect(await owners.skipParked({ owner: 'both' })).toMatchObject({ status: 'failed', error: expect.any(Poisoned) });
  const [parked] = await collect(owners.parkedRows());
  expect(parked).toMatchObject({ event: { streamName: 'B', version: 1 } });
  const skippedOf = async () =>
    ((await owners.readModel.getItem({ owner: 'both' }))?.[RowAttributes.skippedEvents] as Array<{ event: { streamName: string } }>).map(
      (skipped) => skipped.event.streamName,
    );
  expect(await skippedOf()).toEqual(['A']);

  expect(await owners.skipParked({ owner: 'both' })).toMatchObject({ status: 'applied' });
  expect(await skippedOf()).toEqual(['A', 'B']);
  expect(await collect(owners.parkedRows())).toEqual([]);
});

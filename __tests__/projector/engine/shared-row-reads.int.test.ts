import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventsTableDefinition } from 'dynafold';
import { multiSourceCheckpoints } from '../../../lib/projector/checkpoints';
import { rowRecords } from '../../../lib/projector/parking/records';
import { SharedRowReads } from '../../../lib/projector/engine/shared-row-reads';
import type { RowStore } from '../../../lib/projector/engine/row-store';
import { createTestTable, testClient } from '../../support/dynamo';
import { accountModel, accountsProjection, ledgerStream } from '../../support/ledger';
import { createViewsTable } from '../../support/ledger-case';
import { countRequests } from '../../support/requests';

// Calls that read their rows in the same turn of the event loop (a backfill's instances) share one
// BatchGetItem; each gets its rows in its own order, and a row two calls fold is a copy for each.
const client = testClient();
const requests = countRequests(client);
let viewsTable: string;
let eventsTable: string;
afterAll(() => client.destroy());
beforeAll(async () => {
  viewsTable = await createViewsTable(client);
  eventsTable = (await createTestTable(client, eventsTableDefinition, 'shared-row-reads-events')).name;
});

function storeOf(name: string): RowStore {
  const readModel = accountModel(client, viewsTable, name);
  return { readModel, documents: DynamoDBDocumentClient.from(client), checkpoints: multiSourceCheckpoints(), records: rowRecords, revision: false };
}

test('three calls in one turn: one BatchGetItem, each its rows in order, a shared row a copy each', async () => {
  const name = 'Shared';
  const stream = ledgerStream(client, eventsTable, 'A');
  const { events } = await stream.append({ id: 'b' }, [{ type: 'Deposited', data: { owner: 'o', amount: 5 } }]);
  await accountsProjection(stream, accountModel(client, viewsTable, name), { revision: false }).applyBatch(events as never);
  requests.reset();

  const reads = new SharedRowReads(storeOf(name), undefined);
  const [first, second, third] = await Promise.all([
    reads.read([{ id: 'a' }, { id: 'b' }]),
    reads.read([{ id: 'b' }, { id: 'c' }]),
    reads.read([{ id: 'd' }]),
  ]);

  expect(requests.count('BatchGetItemCommand')).toBe(1);
  expect(requests.count('GetItemCommand')).toBe(0);
  expect(first?.map((row) => row.exists)).toEqual([false, true]);
  expect(second?.map((row) => row.exists)).toEqual([true, false]);
  expect(third?.map((row) => row.exists)).toEqual([false]);
  expect(first?.[1]?.state).toEqual(second?.[0]?.state);
  expect(first?.[1]?.state).toMatchObject({ balance: 5 });
  expect(first?.[1]).not.toBe(second?.[0]);
  expect(first?.[1]?.state).not.toBe(second?.[0]?.state);
});

test('a read that fails fails every call that shared it', async () => {
  const failing = testClient();
  const reason = new Error('the table is unreachable');
  failing.middlewareStack.add(() => () => Promise.reject(reason), { step: 'initialize', name: 'failEveryRequest' });
  try {
    const store = { ...storeOf('Failing'), documents: DynamoDBDocumentClient.from(failing) };
    const reads = new SharedRowReads(store, undefined);
    const calls = [reads.read([{ id: 'a' }, { id: 'b' }]), reads.read([{ id: 'c' }])];
    await expect(calls[0]).rejects.toBeInstanceOf(Error);
    await expect(calls[1]).rejects.toBeInstanceOf(Error);
  } finally {
    failing.destroy();
  }
});

import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoRequestError, ProjectionDefaults, eventsTableDefinition } from 'dynafold';
import { multiSourceCheckpoints } from '../../../lib/projector/checkpoints';
import { rowRecords } from '../../../lib/projector/parking/records';
import { readRows } from '../../../lib/projector/engine/read-rows';
import type { RowStore } from '../../../lib/projector/engine/row-store';
import { createTestTable, testClient } from '../../support/dynamo';
import { accountModel, accountsProjection, ledgerStream } from '../../support/ledger';
import { createViewsTable } from '../../support/ledger-case';

// A call reads its rows in BatchGetItems and asks again for the keys DynamoDB leaves unprocessed (it does
// when it throttles the reads): a bounded number of times, and never past the call's signal.
const client = testClient();
let viewsTable: string;
let eventsTable: string;
afterAll(() => client.destroy());
beforeAll(async () => {
  viewsTable = await createViewsTable(client);
  eventsTable = (await createTestTable(client, eventsTableDefinition, 'read-rows-events')).name;
});

/**
 * A real client whose BatchGetItems go to DynamoDB Local and come back with every key unprocessed, as
 * DynamoDB answers when it throttles the reads; `onBatchGet` is told of each.
 */
function throttledBatchGets(onBatchGet: (count: number) => void = () => undefined) {
  const throttled = testClient();
  let count = 0;
  throttled.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName !== 'BatchGetItemCommand') return result;
      const { RequestItems } = args.input as { RequestItems: Record<string, unknown> };
      onBatchGet(++count);
      return { ...result, output: { ...(result.output as object), Responses: {}, UnprocessedKeys: RequestItems } as typeof result.output };
    },
    { step: 'initialize', name: 'leaveKeysUnprocessed' },
  );
  return { client: throttled, batchGets: () => count };
}

function storeOn(dynamo: ReturnType<typeof testClient>, name: string): RowStore {
  const readModel = accountModel(dynamo, viewsTable, name);
  return { readModel, documents: DynamoDBDocumentClient.from(dynamo), checkpoints: multiSourceCheckpoints(), records: rowRecords, revision: false };
}

const keys = [{ id: 'a' }, { id: 'b' }];

test('keys left unprocessed on every request: readRows gives up after its bound with a DynamoRequestError', async () => {
  const throttled = throttledBatchGets();
  try {
    const read = readRows(storeOn(throttled.client, 'GiveUp'), keys);
    await expect(read).rejects.toThrow(DynamoRequestError);
    await expect(read).rejects.toMatchObject({ code: 'dynamo.request', operation: 'BatchGetItem' });
    expect(throttled.batchGets()).toBe(ProjectionDefaults.unprocessedKeys.attempts);
  } finally {
    throttled.client.destroy();
  }
});

test("an aborted signal ends readRows' wait before the next request, with the signal's reason", async () => {
  const controller = new AbortController();
  const reason = new Error('the call is cut short');
  // Aborted once the first answer leaves the keys unprocessed: the wait before asking again is what it ends.
  const throttled = throttledBatchGets(() => controller.abort(reason));
  try {
    await expect(readRows(storeOn(throttled.client, 'Abort'), keys, controller.signal)).rejects.toBe(reason);
    expect(throttled.batchGets()).toBe(1);
  } finally {
    throttled.client.destroy();
  }
});

test('a batch whose BatchGetItems keep leaving keys unprocessed still applies: past the bound each row reads itself', async () => {
  const throttled = throttledBatchGets();
  try {
    const stream = ledgerStream(client, eventsTable, 'A');
    const accounts = accountsProjection(ledgerStream(throttled.client, eventsTable, 'A'), accountModel(throttled.client, viewsTable, 'Batch'), {
      revision: false,
    });
    const deposit = { type: 'Deposited' as const, data: { owner: 'o', amount: 1 } };
    const [first, second] = await Promise.all([stream.append({ id: 'rr-a' }, [deposit]), stream.append({ id: 'rr-b' }, [deposit])]);
    const events = [...first.events, ...second.events];
    const { outcomes } = await accounts.applyBatch(events as never);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['applied', 'applied']);
    expect(throttled.batchGets()).toBe(ProjectionDefaults.unprocessedKeys.attempts);
  } finally {
    throttled.client.destroy();
  }
});

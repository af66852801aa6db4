import { eventsTableDefinition, readModelTableDefinition, type Logger } from 'dynafold';
import { processBatch, type BatchMetrics } from 'dynafold/lambda';
import { createTestTable, testClient } from '../support/dynamo';
import { accountModel, accountsProjection, ledgerStream } from '../support/ledger';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../support/stream-records';

const client = testClient();
afterAll(() => client.destroy());

/** Records every call as its arguments; `pino` gives it pino's marks (`levels`, `bindings`). */
function recordingLogger(pino: boolean): Logger & { readonly calls: unknown[][] } {
  const calls: unknown[][] = [];
  const logger = { calls, warn: (...args: unknown[]) => void calls.push(args), error: (...args: unknown[]) => void calls.push(args) };
  return pino ? Object.assign(logger, { levels: { values: {} }, bindings: () => ({}) }) : logger;
}

test('the batch metrics count what the batch did: events applied, writes, gap reads, parked rows, decode failures, record age', async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'metrics-events');
  const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [accountModel(client, name, 'Any')]), 'metrics-views')).name;
  const stream = ledgerStream(client, events.name, 'A');
  const accounts = accountsProjection(stream, accountModel(client, views, 'Metered'), {
    revision: false,
    poison: { park: { afterAttempts: 1 } },
    isPoison: (event) => event.type === 'Deposited' && event.data.amount === 13,
  });
  // One event per append, so the last record holds version 3 alone and the batch reads 1 and 2 in a gap read.
  for (const amount of [1, 2, 3]) await stream.append({ id: 'gap' }, [{ type: 'Deposited', data: { owner: 'a', amount } }]);
  await stream.append({ id: 'poison' }, [{ type: 'Deposited', data: { owner: 'a', amount: 13 } }]);
  const records = insertsOnly(await readStreamRecords(events.streamArn as string)).map(asLambdaRecord);
  const gapLast = records.filter((record) => record.dynamodb?.NewImage?.['pk']?.S === 'A#gap').at(-1);
  const poison = records.find((record) => record.dynamodb?.NewImage?.['pk']?.S === 'A#poison');
  const broken = { ...gapLast, dynamodb: { ...gapLast?.dynamodb, NewImage: { _df: { S: 'A' }, pk: { S: 'A#broken' } } } };
  let metrics: BatchMetrics | undefined;
  const logger = recordingLogger(false);
  const result = await processBatch([gapLast, poison, broken], {
    projections: { accounts },
    onMetrics: (m) => (metrics = m),
    logger,
    onDecodeFailure: 'skip',
  });
  expect(result.response.batchItemFailures).toEqual([]);
  expect(metrics).toMatchObject({
    records: 3,
    eventsApplied: 3,
    alreadyApplied: 0,
    rowsWritten: 1,
    gapReads: 1,
    lostRaces: 0,
    rowsFailed: 0,
    rowsParked: 1,
    decodeFailures: 1,
    projections: { accounts: { eventsApplied: 3, rowsParked: 1, gapReads: 1 } },
  });
  expect(metrics?.durationMs).toBeGreaterThan(0);
  expect(metrics?.oldestRecordAgeMs).toEqual(expect.any(Number));
  // Powertools' and console's order: the message first.
  expect(logger.calls).toContainEqual(['record failed to decode', expect.objectContaining({ position: 2 })]);
});

test('a logger gets its own argument order: pino (details, message), Powertools and console (message, details)', async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'logger-events');
  const broken = { eventName: 'INSERT', dynamodb: { SequenceNumber: '1', NewImage: { _df: { S: 'A' }, pk: { S: 'A#x' } } } };
  const stream = ledgerStream(client, events.name, 'A');
  const views = (await createTestTable(client, (name) => readModelTableDefinition(name, [accountModel(client, name, 'Any')]), 'logger-views')).name;
  const accounts = accountsProjection(stream, accountModel(client, views, 'Logged'), { revision: false });
  for (const pino of [true, false]) {
    const logger = recordingLogger(pino);
    await processBatch([broken], { projections: [accounts], logger });
    const [first] = logger.calls;
    expect(pino ? first?.[1] : first?.[0]).toBe('record failed to decode');
    expect(pino ? first?.[0] : first?.[1]).toMatchObject({ position: 0 });
  }
});

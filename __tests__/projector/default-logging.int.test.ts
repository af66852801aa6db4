/**
 * With no `logger`, the entry points that run unattended log what went wrong, one JSON line per row or
 * record through console.warn / console.error (what Lambda sends to CloudWatch); `logger: false` silences.
 */
import { Projection, eventsTableDefinition, readModelTableDefinition, type Logger } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { OutboxRelay } from 'dynafold/outbox';
import { ChangeFeedConsumer, MemoryCheckpointStore, runChangeFeed } from 'dynafold/feed';
import { lambdaStreamEventOf, withNewImage } from '../fixtures/dynamodb-stream-event';
import { createTestTable, testClient, uniqueName } from '../support/dynamo';
import { localFeed, streamsClient } from '../feed/support';
import { evolveSummary, initialSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream } from '../support/orders';

const client = testClient();
const streams = streamsClient();
let eventsTable: string;
let streamArn: string;
let viewsTable: string;

afterAll(() => {
  client.destroy();
  streams.destroy();
});

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'logging-events');
  eventsTable = events.name;
  streamArn = events.streamArn as string;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'logging-views')).name;
  const stream = orderStream(client, eventsTable);
  for (const orderId of ['o-1', 'o-2']) await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
});

/** What reaches `console.warn` and `console.error` while `run` runs, as parsed JSON lines (a line that is not JSON fails the test). */
async function consoleLines(run: () => Promise<unknown>): Promise<Array<Record<string, unknown>>> {
  const lines: Array<Record<string, unknown>> = [];
  const capture = (line: unknown) => void lines.push(JSON.parse(String(line)) as Record<string, unknown>);
  const spies = [jest.spyOn(console, 'warn').mockImplementation(capture), jest.spyOn(console, 'error').mockImplementation(capture)];
  try {
    await run();
    return lines;
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

test('processBatch logs a parked row (error) and an undecodable record (warn), a JSON line each', async () => {
  const parking = new Projection({
    name: 'parking',
    stream: orderStream(client, eventsTable),
    readModel: orderSummaries(client, viewsTable),
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => {
      if (event.streamId === 'o-2') throw new Error('o-2 can not be folded');
      return evolveSummary(state, event);
    },
    checkpoint: 'version',
    poison: { park: { afterAttempts: 1 } },
  });
  const event = await lambdaStreamEventOf(streamArn);
  const corrupt = event.Records.findIndex((record) => record.dynamodb?.NewImage?.['pk']?.S === 'Order#o-1');
  const records = event.Records.map((record, position) =>
    position !== corrupt ? record : withNewImage(record, (image) => void (image['data'] = { M: { customer: { N: '1' } } })),
  );

  const lines = await consoleLines(() => processBatch(records, { projections: { parking }, source: 'lambda' }));

  expect(lines).toHaveLength(2);
  expect(lines).toContainEqual(
    expect.objectContaining({
      level: 'error',
      projection: 'parking',
      key: { orderId: 'o-2' },
      event: { streamName: 'Order', streamId: 'o-2', version: 1, type: 'OrderPlaced' },
      attempts: 1,
      error: { name: 'Error', message: 'o-2 can not be folded' },
    }),
  );
  expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', position: corrupt, code: 'store.decode' }));
});

test('runChangeFeed logs a failed row with its projection, key, event and code', async () => {
  const missing = uniqueName('no-such-views');
  const summaries = orderSummaryProjection(orderStream(client, eventsTable), orderSummaries(client, missing));
  const feed = new ChangeFeedConsumer({ ...localFeed, streamsClient: streams, streamArn, checkpoints: new MemoryCheckpointStore() });
  const lines = await consoleLines(() => runChangeFeed(feed, { projections: [summaries], onBatch: () => feed.stop() }));
  // Under its one name, the projection's `name`.
  expect(lines.map((line) => [line['projection'], line['key'], line['code'], (line['event'] as { version?: number }).version])).toEqual(
    expect.arrayContaining([
      ['Order->OrderSummary', { orderId: 'o-1' }, 'dynamo.tableNotFound', 1],
      ['Order->OrderSummary', { orderId: 'o-2' }, 'dynamo.tableNotFound', 1],
    ]),
  );
});

test('the outbox relay logs a row it could not drain; logger: false silences it, a logger of its own gets the entry instead', async () => {
  const missing = uniqueName('no-such-outbox');
  const partition = JSON.stringify(['summaries', 'o-1']);
  const records = [{ eventName: 'INSERT', dynamodb: { SequenceNumber: '1', NewImage: { _dfOutbox: { S: 'summaries' }, pk: { S: partition } } } }];
  const relay = (logger?: Logger | false) => new OutboxRelay({ client, table: missing, publish: () => Promise.resolve(), logger });

  const lines = await consoleLines(() => relay().processBatch(records));
  expect(lines).toEqual([expect.objectContaining({ level: 'warn', projection: 'summaries', partition, code: 'dynamo.tableNotFound' })]);
  expect(await consoleLines(() => relay(false).processBatch(records))).toEqual([]);

  const seen: unknown[] = [];
  const own: Logger = { warn: (...args: unknown[]) => void seen.push(args) };
  expect(await consoleLines(() => relay(own).processBatch(records))).toEqual([]);
  expect(seen).toHaveLength(1);
});

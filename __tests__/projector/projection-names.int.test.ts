/**
 * A projection has one name, its `name`: the transports take a list and report each projection under it
 * (outcomes, `onMetrics`, logs), as spans and metrics do. A record whose keys are not the names still works,
 * deprecated: it warns once and reports under its keys.
 */
import { ConfigurationError, Projection, eventsTableDefinition, readModelTableDefinition, type Logger } from 'dynafold';
import { lambdaHandler, processBatch, type BatchMetrics } from 'dynafold/lambda';
import { lambdaStreamEventOf } from '../fixtures/dynamodb-stream-event';
import { createTestTable, testClient, uniqueName } from '../support/dynamo';
import { evolveSummary, initialSummary, orderSummaries } from '../support/order-projection';
import { orderStream } from '../support/orders';
import { counted, registerTelemetry, spansNamed } from '../support/telemetry';

const client = testClient();
const telemetry = registerTelemetry();
let eventsTable: string;
let streamArn: string;
let viewsTable: string;
let orders: ReturnType<typeof orderStream>;

afterAll(async () => {
  client.destroy();
  await telemetry.shutdown();
});

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'names-events');
  eventsTable = events.name;
  streamArn = events.streamArn as string;
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'names-views')).name;
  orders = orderStream(client, eventsTable);
  await orders.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
});

/** A projection of the orders into `views` (a missing table makes its rows fail), named `name`. */
const summaries = (name: string | undefined, views = viewsTable) =>
  new Projection({
    ...(name === undefined ? {} : { name }),
    stream: orders,
    readModel: orderSummaries(client, views),
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state, event) => evolveSummary(state, event),
    checkpoint: 'version',
  });

/** A logger that keeps what it is told. */
function keeping(): { logger: Logger; lines: Array<{ level: string; message: string; details: Record<string, unknown> }> } {
  const lines: Array<{ level: string; message: string; details: Record<string, unknown> }> = [];
  const at = (level: string) => (message: unknown, details: unknown) =>
    void lines.push({ level, message: String(message), details: (details ?? {}) as Record<string, unknown> });
  return { logger: { warn: at('warn'), error: at('error'), info: at('info') }, lines };
}

test('a list reports each projection under its name: outcomes, onMetrics, logs, spans and metrics', async () => {
  const named = summaries('order-summaries');
  const failing = summaries('missing-summaries', uniqueName('no-such-views'));
  const event = await lambdaStreamEventOf(streamArn);
  const { logger, lines } = keeping();
  let figures: BatchMetrics | undefined;
  let outcomes: Record<string, ReadonlyArray<{ status: string }>> = {};
  telemetry.reset();
  await lambdaHandler({
    projections: [named, failing],
    logger,
    onMetrics: (metrics) => void (figures = metrics),
    onBatch: (result) => void (outcomes = result.outcomes),
  })(event);

  expect(Object.fromEntries(Object.entries(outcomes).map(([name, list]) => [name, list.map((outcome) => outcome.status)]))).toEqual({
    'order-summaries': ['applied'],
    'missing-summaries': ['failed'],
  });
  expect(Object.keys(figures?.projections ?? {}).sort()).toEqual(['missing-summaries', 'order-summaries']);
  expect(lines.filter((line) => line.level === 'warn').map((line) => line.details['projection'])).toEqual(['missing-summaries']);
  expect(spansNamed(telemetry.spans(), 'writeRow order-summaries')).toHaveLength(1);
  expect(counted((await telemetry.metrics()).get('dynafold.rows.written'), { 'dynafold.projection.name': 'order-summaries' })).toBe(1);
});

test('two projections of one name in a list are a ConfigurationError naming it', async () => {
  const event = await lambdaStreamEventOf(streamArn);
  const twice = [summaries('twin'), summaries('twin')];
  await expect(processBatch(event.Records, { projections: twice, source: 'lambda' })).rejects.toThrow(ConfigurationError);
  await expect(processBatch(event.Records, { projections: twice, source: 'lambda' })).rejects.toThrow(/two projections are named twin/);
});

test('a record keyed by names is a list by another spelling; a key other than the name is deprecated, warned once, and reported', async () => {
  const event = await lambdaStreamEventOf(streamArn);
  const quiet = keeping();
  const byName = await processBatch(event.Records, {
    projections: { 'order-summaries': summaries('order-summaries') },
    source: 'lambda',
    logger: quiet.logger,
  });
  expect(Object.keys(byName.outcomes)).toEqual(['order-summaries']);
  expect(quiet.lines).toEqual([]);

  const told = keeping();
  for (let call = 0; call < 2; call++) {
    const result = await processBatch(event.Records, { projections: { summaries: summaries(undefined) }, source: 'lambda', logger: told.logger });
    expect(Object.keys(result.outcomes)).toEqual(['summaries']);
  }
  expect(told.lines).toEqual([
    {
      level: 'warn',
      message: expect.stringMatching(
        /^`projections: \{ summaries: … \}, a key other than the projection's name \(Order->OrderSummary\)` is deprecated/,
      ),
      details: expect.objectContaining({ replacement: expect.stringContaining("name: 'summaries'") }),
    },
  ]);
});

/**
 * Traces of reactions and timers: a command's append links back to the append of the event that caused
 * it, and a timer's firing links to the span that scheduled it.
 */
import { trace } from '@opentelemetry/api';
import { eventsTableDefinition } from 'dynafold';
import { Reaction, command, reactionsTableDefinition, sweepTimers } from 'dynafold/reactions';
import { TestClock } from 'dynafold/testing';
import { PAYMENT_DUE_MS, checkoutStreams, checkoutWorkflow } from '../support/checkout';
import { createTestTable, testClient } from '../support/dynamo';
import { reserve, shopOrders, stockStream } from '../support/shop';
import { idsOf, linkTargets, onlySpan, parentOf, registerTelemetry, spansNamed } from '../support/telemetry';

const telemetry = registerTelemetry();
const client = testClient();
let tables: { events: string; reactions: string };

beforeAll(async () => {
  tables = {
    events: (await createTestTable(client, eventsTableDefinition, 'trace-events')).name,
    reactions: (await createTestTable(client, reactionsTableDefinition, 'trace-reactions')).name,
  };
});
beforeEach(() => telemetry.reset());
afterAll(async () => {
  client.destroy();
  await telemetry.shutdown();
});

/** Runs `fn` in a span of the test's own, as a transport's process span would be. */
function inTestSpan<T>(name: string, fn: () => Promise<T>): Promise<T> {
  return trace.getTracer('test').startActiveSpan(name, async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
}

test("a command's append stores the context of its reaction's span, which links to the source event's append", async () => {
  const orders = shopOrders(client, tables.events, 'TraceOrder');
  const stock = stockStream(client, tables.events, 'TraceStock');
  const reaction = new Reaction({
    name: 'trace-reserve',
    streams: [orders],
    client,
    table: tables.reactions,
    react: (event) => (event.type === 'OrderPlaced' ? command(stock, { sku: event.data.sku }, reserve(event.streamId, event.version, 1)) : undefined),
  });
  const { events } = await orders.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { sku: 'pen', quantity: 1 } }]);
  const append = onlySpan(telemetry.spans(), 'append TraceOrder');
  await inTestSpan('process', () => reaction.applyBatch(events));
  const react = onlySpan(telemetry.spans(), 'react trace-reserve');
  expect(parentOf(react)).toBe(idsOf(onlySpan(telemetry.spans(), 'writeRow trace-reserve')).spanId);
  expect(linkTargets(react.links).map(({ traceId, spanId }) => ({ traceId, spanId }))).toEqual([idsOf(append)]);
  const [reserved] = await stock.read({ sku: 'pen' });
  const { traceId, spanId } = idsOf(react);
  expect(reserved?.trace?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
});

test("a timer's firing links to the span that scheduled it; its effects' appends store the firing's context", async () => {
  const streams = checkoutStreams(client, tables.events, 'Trace');
  const clock = new TestClock();
  const { workflow, timers } = checkoutWorkflow(client, tables, streams, clock, 'TraceCheckout');
  const { events } = await streams.orders.append({ orderId: 'o-2' }, [{ type: 'OrderPlaced', data: { amount: 1 } }]);
  await inTestSpan('process', () => workflow.applyBatch(events));
  const scheduling = onlySpan(telemetry.spans(), 'react TraceCheckout');
  clock.advance(PAYMENT_DUE_MS + 1);
  expect((await sweepTimers({ timers, owners: [workflow] })).fired).toBe(1);
  const [fire] = spansNamed(telemetry.spans(), 'fire TraceCheckout');
  expect(fire?.attributes).toMatchObject({ 'dynafold.timer.name': 'payment-due', 'dynafold.timer.outcome': 'fired' });
  expect(linkTargets(fire?.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId }))).toEqual([idsOf(scheduling)]);
  const cancelled = (await streams.orders.read({ orderId: 'o-2' }))[1];
  const { traceId, spanId } = idsOf(fire as NonNullable<typeof fire>);
  expect(cancelled?.trace?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
});

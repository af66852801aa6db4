/**
 * What a failed span keeps of an exception: its type and code, its message cut as a row's records cut it,
 * and the stack's frames under the cut message. The message is written by the code that threw and may hold
 * personal data, which a trace backend keeps whatever a forget deletes.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { Projection, RecordedErrorLimits } from 'dynafold';
import { lambdaHandler } from 'dynafold/lambda';
import { lambdaStreamEvent } from '../fixtures/dynamodb-stream-event';
import { testClient } from '../support/dynamo';
import { createOrderSummaryTables } from '../support/order-tables';
import { initialSummary, type OrderSummary } from '../support/order-projection';
import { insertsOnly, readStreamRecords } from '../support/stream-records';
import { onlySpan, registerTelemetry } from '../support/telemetry';

const client = testClient();
const telemetry = registerTelemetry();
afterAll(async () => {
  client.destroy();
  await telemetry.shutdown();
});

test('a failed span records the exception’s message cut to its limit, and no stack line repeats the rest', async () => {
  const { stream, summaries, streamArn, eventsTable } = await createOrderSummaryTables(client, 'otel-messages');
  await stream.append({ orderId: 'o-1' }, [{ type: 'OrderPlaced', data: { customer: 'ada' } }]);
  const tail = 'the rest of a long message: ada@example.com';
  const long = `bad customer ${'x'.repeat(RecordedErrorLimits.messageChars)} ${tail}`;
  const broken = new Projection({
    stream,
    readModel: summaries,
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (): OrderSummary => {
      throw new Error(long);
    },
    checkpoint: 'version',
  });
  const handler = lambdaHandler({ projections: { summaries: broken }, logger: false });
  await handler(lambdaStreamEvent(insertsOnly(await readStreamRecords(streamArn)), { streamArn }));

  const spans = telemetry.spans();
  const row = onlySpan(spans, 'writeRow Order->OrderSummary');
  const cut = `${long.slice(0, RecordedErrorLimits.messageChars - 1)}…`;
  expect(row.status).toEqual({ code: SpanStatusCode.ERROR, message: cut });
  const [exception] = row.events.filter((event) => event.name === 'exception');
  expect(exception?.attributes).toMatchObject({ 'exception.type': 'Error', 'exception.message': cut });
  const stacktrace = String(exception?.attributes?.['exception.stacktrace']);
  expect(stacktrace.startsWith(`Error: ${cut}\n`)).toBe(true);
  expect(stacktrace).toMatch(/\n\s+at /);
  const process = onlySpan(spans, `process ${eventsTable}`);
  const failed = process.events.filter((event) => event.name === 'dynafold.row.failed').map((event) => event.attributes?.['exception.message']);
  expect(failed).toEqual([cut]);
  expect(JSON.stringify(spans.map((span) => [span.attributes, span.events, span.status]))).not.toContain(tail);
});

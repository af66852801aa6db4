import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { Projection, type StreamEvent } from 'dynafold';
import { lambdaHandler } from 'dynafold/lambda';
import { lambdaStreamEvent } from '../fixtures/dynamodb-stream-event';
import { propertySettings, propertyTimeout } from '../support/delivery';
import { testClient } from '../support/dynamo';
import { createOrderSummaryTables } from '../support/order-tables';
import { evolveSummary, initialSummary, type OrderSummary } from '../support/order-projection';
import { orderStream, type OrderEvent } from '../support/orders';
import { seededRandom, shuffle } from '../support/random';
import { eventKeysOf, insertsOnly, readStreamRecords } from '../support/stream-records';
import { parentOf, registerTelemetry, spansNamed, type Telemetry } from '../support/telemetry';

// The spans keep what the observability guide promises, whatever the writes and deliveries: random appends
// (traced or not, one event or several, an item per event or a commit, some at a stale version) and
// commands (some racing another writer), then random deliveries of the stream's records (a few, out of
// order, so that rows fill gaps from the store), with an evolve that may fail on some version. Each row's
// span links once to the append of every event it was given or applied; a row whose fold failed has an
// ERROR span; every append span names its stream instance; a command's winning try says its version; and
// each of dynafold's spans reports as consumed capacity the sum over every request sent while it was active.
const client = testClient();
let tables: Awaited<ReturnType<typeof createOrderSummaryTables>>;
let telemetry: Telemetry;
let cases = 0;
/** How often the paths the promises are about were taken, so that the property is seen to reach them. */
const seen = { gapFilled: 0, failedAfterWrite: 0, failedAppend: 0, lostTry: 0 };

/** Each request the client sent: the span active when it was sent, and the capacity it consumed. */
const sent: Array<{ spanId: string | undefined; capacity: unknown }> = [];
client.middlewareStack.add(
  (next) => async (args) => {
    const spanId = trace.getActiveSpan()?.spanContext().spanId;
    const result = await next(args);
    sent.push({ spanId, capacity: (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity });
    return result;
  },
  { step: 'initialize', name: 'capacityLog' },
);

beforeAll(async () => {
  tables = await createOrderSummaryTables(client, 'prop-traces');
  telemetry = registerTelemetry();
});
afterAll(async () => {
  client.destroy();
  await telemetry.shutdown();
});

type Write =
  | { readonly kind: 'append'; readonly events: number; readonly traced: boolean; readonly stale: boolean }
  | { readonly kind: 'execute'; readonly traced: boolean; readonly race: boolean };

const writes: fc.Arbitrary<Write[]> = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('append' as const), events: fc.integer({ min: 1, max: 3 }), traced: fc.boolean(), stale: fc.boolean() }),
    fc.record({ kind: fc.constant('execute' as const), traced: fc.boolean(), race: fc.boolean() }),
  ),
  { minLength: 1, maxLength: 6 },
);

/** A delivery: a share of the stream's records (at least one), shuffled by `seed`. */
const deliveries = fc.array(fc.record({ seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }), share: fc.constantFrom(0.2, 0.5, 1) }), {
  minLength: 1,
  maxLength: 2,
});

const item = { type: 'ItemAdded', data: { sku: 'pen', price: 1 } } as const;

/** Runs `fn` in a request's span when `traced` (as a route would), else with no span active. */
function maybeTraced<T>(traced: boolean, fn: () => Promise<T>): Promise<T> {
  if (!traced) return fn();
  return trace.getTracer('test').startActiveSpan('request', async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
}

/** What the requests sent inside a span consumed, summed per table, as its attribute lists it. */
function consumedIn(spanId: string): unknown[] {
  const byTable = new Map<string, Record<string, number | string>>();
  for (const request of sent.filter((each) => each.spanId === spanId)) {
    for (const capacity of [request.capacity].flat() as Array<Record<string, number | string> | undefined>) {
      if (capacity === undefined) continue;
      const table = String(capacity['TableName']);
      const total = byTable.get(table) ?? {};
      for (const [field, value] of Object.entries(capacity))
        total[field] = typeof value === 'number' ? ((total[field] as number | undefined) ?? 0) + value : value;
      byTable.set(table, total);
    }
  }
  return [...byTable.values()];
}

const capacityOf = (span: ReadableSpan) =>
  ((span.attributes['aws.dynamodb.consumed_capacity'] as string[] | undefined) ?? []).map((each) => JSON.parse(each) as unknown);

/** Every span dynafold made consumed what its requests did, and each of its requests asked to be counted. */
function expectCapacitySummed(spans: ReadonlyArray<ReadableSpan>): void {
  for (const span of spans.filter((each) => each.name !== 'request')) {
    const { spanId } = span.spanContext();
    expect({ span: span.name, capacity: capacityOf(span) }).toEqual({ span: span.name, capacity: consumedIn(spanId) });
    expect({ span: span.name, uncounted: sent.filter((request) => request.spanId === spanId && request.capacity === undefined).length }).toEqual({
      span: span.name,
      uncounted: 0,
    });
  }
}

/** The links a row's span should have: one per stored context among the events it was given or applied, with their versions. */
function expectedLinks(events: ReadonlyArray<StreamEvent>, versions: ReadonlySet<number>): Array<{ spanId: string; versions: number[] }> {
  const byContext = new Map<string, number[]>();
  for (const event of events) {
    if (!versions.has(event.version) || event.trace === undefined) continue;
    byContext.set(event.trace.traceparent, [...(byContext.get(event.trace.traceparent) ?? []), event.version]);
  }
  return [...byContext].map(([traceparent, linked]) => ({ spanId: traceparent.split('-')[2] as string, versions: linked })).sort(bySpan);
}

const bySpan = (a: { spanId: string }, b: { spanId: string }) => a.spanId.localeCompare(b.spanId);

test(
  "spans keep the guide's promises: row links, failed rows, stream ids, command versions and consumed capacity",
  async () => {
    await fc.assert(
      fc.asyncProperty(
        writes,
        deliveries,
        fc.boolean(),
        fc.option(fc.integer({ min: 2, max: 8 }), { nil: undefined }),
        async (writeOps, batches, itemPerEvent, poisonAt) => {
          const orderId = `c${++cases}-o`;
          const stream = orderStream(client, tables.eventsTable, { itemPerEvent });
          const id = { orderId };
          telemetry.reset();
          sent.length = 0;
          for (const write of writeOps) {
            if (write.kind === 'append') {
              const version = await stream.version(id);
              const events = [{ type: 'OrderPlaced', data: { customer: 'ada' } } as const, ...Array.from({ length: write.events - 1 }, () => item)];
              const options = write.stale ? { expectedVersion: version === 0 ? 1 : version - 1 } : {};
              await maybeTraced(write.traced, () => stream.append(id, events, options)).catch(() => undefined);
            } else {
              let raced = !write.race;
              const decide = async () => {
                if (!raced) {
                  raced = true;
                  await stream.append(id, [item]);
                }
                return [item];
              };
              await maybeTraced(write.traced, () => stream.execute(id, { initial: null, evolve: (state) => state, decide }));
            }
          }
          let spans = telemetry.spans();
          // (c) Every append span names its stream instance, failed or not.
          expect(spansNamed(spans, 'append Order').filter((span) => span.attributes['dynafold.stream.id'] !== orderId)).toEqual([]);
          seen.failedAppend += spansNamed(spans, 'append Order').filter((span) => span.status.code === SpanStatusCode.ERROR).length;
          // (d) A command's winning try (its last) says the command's version; its lost tries none.
          for (const execute of spansNamed(spans, 'execute Order')) {
            const tries = spansNamed(spans, 'append Order').filter((span) => parentOf(span) === execute.spanContext().spanId);
            // The other writer's append (inside decide) has no expected version; the command's tries have theirs.
            const own = tries.filter((span) => span.attributes['dynafold.expected_version'] !== undefined);
            seen.lostTry += own.length - 1;
            expect(own.map((span) => span.attributes['dynafold.version'])).toEqual([
              ...own.slice(0, -1).map(() => undefined),
              execute.attributes['dynafold.version'],
            ]);
          }
          expectCapacitySummed(spans);

          const stored = await stream.read(id);
          const projection = new Projection({
            stream,
            readModel: tables.summaries,
            key: (streamId) => ({ orderId: streamId.orderId }),
            initial: (streamId) => initialSummary(streamId.orderId),
            evolve: (state: OrderSummary, event: OrderEvent) => {
              if (event.version === poisonAt) throw new Error('poison');
              return evolveSummary(state, event);
            },
            checkpoint: 'version',
            logger: {},
          });
          const handler = lambdaHandler({ projections: { summaries: projection }, logger: false });
          const records = insertsOnly(await readStreamRecords(tables.streamArn)).filter(
            (record) => eventKeysOf(record.dynamodb?.NewImage).streamId === orderId,
          );
          for (const { seed, share } of batches) {
            const delivered = shuffle(records, seededRandom(seed)).slice(0, Math.max(1, Math.round(share * records.length)));
            telemetry.reset();
            sent.length = 0;
            const response = await handler(lambdaStreamEvent(delivered, { streamArn: tables.streamArn }));
            spans = telemetry.spans();
            const given = new Set(delivered.flatMap(versionsOf));
            const rows = spansNamed(spans, 'writeRow Order->OrderSummary');
            for (const row of rows) {
              // (a) One link per append of the events given or applied (those read to fill a gap too).
              const applied = (row.attributes['dynafold.event.versions'] as number[] | undefined) ?? [];
              const links = row.links.map((link) => ({
                spanId: link.context.spanId,
                versions: link.attributes?.['dynafold.event.versions'] as number[],
              }));
              expect(links.sort(bySpan)).toEqual(expectedLinks(stored, new Set([...given, ...applied])));
              if (applied.some((version) => !given.has(version))) seen.gapFilled++;
              if (row.status.code === SpanStatusCode.ERROR && row.attributes['dynafold.row.written'] === true) seen.failedAfterWrite++;
            }
            // (b) A row whose fold failed (on its first event or a later one) has an ERROR span, with the exception.
            const failed = response.batchItemFailures.length > 0;
            expect(rows.some((row) => row.status.code === SpanStatusCode.ERROR)).toBe(failed);
            for (const row of rows.filter((each) => each.status.code === SpanStatusCode.ERROR)) {
              expect(row.events.map((event) => event.attributes?.['exception.message'])).toEqual(['poison']);
            }
            // (e) The rows' and the batch's consumed capacity: their reads (gap reads too) and writes.
            expectCapacitySummed(spans);
          }
        },
      ),
      propertySettings(40),
    );
    expect(Object.entries(seen).filter(([, count]) => count === 0)).toEqual([]);
  },
  propertyTimeout(40),
);

/** The versions a record's item holds: its key's version, and those after it in its commit. */
function versionsOf(record: _Record): number[] {
  const image = record.dynamodb?.NewImage;
  const first = eventKeysOf(image).version ?? 0;
  const count = Number(image?.['count']?.N ?? '1');
  return Array.from({ length: count }, (_, index) => first + index);
}

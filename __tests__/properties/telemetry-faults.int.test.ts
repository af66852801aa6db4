import fc from 'fast-check';
import { DynafoldError, Projection, type StreamEvent } from 'dynafold';
import { kinesisHandler, lambdaHandler } from 'dynafold/lambda';
import { toKinesisRecord } from 'dynafold/local';
import { lambdaStreamEvent } from '../fixtures/dynamodb-stream-event';
import { propertySettings, propertyTimeout } from '../support/delivery';
import { testClient } from '../support/dynamo';
import { createOrderSummaryTables } from '../support/order-tables';
import { evolveSummary, initialSummary, orderSummaries, type OrderSummary } from '../support/order-projection';
import { emptyOrder, evolveOrder, type OrderEvent } from '../support/orders';
import { seededRandom } from '../support/random';
import { eventKeysOf, insertsOnly, readStreamRecords } from '../support/stream-records';
import { registerFaultyTelemetry, type SdkFault } from '../support/telemetry';

// Telemetry never changes an outcome: random operations of the store and the projector (appends plain,
// idempotent, at a stale version or invalid, commands that race, loads with snapshots, deliveries by
// each transport, whole or only an order's last record so that its row fills a gap, rebuilds, catch-ups, a
// row that parks) run twice, once with an OpenTelemetry SDK that throws at random points (a span
// processor's onStart and onEnd, span methods, the context manager, the metric reader or a view) and
// once with none, on stream instances of their own: each operation ends the same, and the store and the
// rows hold the same.
const client = testClient();
let tables: Awaited<ReturnType<typeof createOrderSummaryTables>>;
let cases = 0;
const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);

beforeAll(async () => {
  tables = await createOrderSummaryTables(client, 'prop-otel');
});
afterAll(() => {
  client.destroy();
  warn.mockRestore();
});

const ORDERS = [0, 1] as const;
const order = fc.constantFrom(...ORDERS);

type Op =
  | { readonly kind: 'append'; readonly order: number; readonly events: number; readonly key: 'k1' | 'k2' | undefined }
  | { readonly kind: 'appendAt'; readonly order: number; readonly stale: boolean }
  | { readonly kind: 'invalid'; readonly order: number }
  | { readonly kind: 'execute'; readonly order: number; readonly race: boolean }
  | { readonly kind: 'load'; readonly order: number; readonly snapshot: boolean }
  | { readonly kind: 'deliver'; readonly order: number; readonly transport: 'processBatch' | 'lambda' | 'kinesis'; readonly last: boolean }
  | { readonly kind: 'rebuild'; readonly order: number }
  | { readonly kind: 'catchUp'; readonly order: number }
  | { readonly kind: 'park'; readonly order: number };

const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constant('append' as const),
      order,
      events: fc.integer({ min: 1, max: 3 }),
      key: fc.option(fc.constantFrom('k1' as const, 'k2' as const), { nil: undefined }),
    }),
    fc.record({ kind: fc.constant('appendAt' as const), order, stale: fc.boolean() }),
    fc.record({ kind: fc.constant('invalid' as const), order }),
    fc.record({ kind: fc.constant('execute' as const), order, race: fc.boolean() }),
    fc.record({ kind: fc.constant('load' as const), order, snapshot: fc.boolean() }),
    fc.record({
      kind: fc.constant('deliver' as const),
      order,
      transport: fc.constantFrom('processBatch' as const, 'lambda' as const, 'kinesis' as const),
      last: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('rebuild' as const), order }),
    fc.record({ kind: fc.constant('catchUp' as const), order }),
    fc.record({ kind: fc.constant('park' as const), order }),
  ),
  { minLength: 2, maxLength: 10 },
);

const FAULTS: ReadonlyArray<SdkFault> = ['spanStart', 'spanEnd', 'spanCall', 'context', 'instruments', 'measure'];

/** Where the SDK throws: at which kinds of call, how often (a seeded draw per call), and which metrics fault. */
const sdks = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  rate: fc.constantFrom(0.2, 0.5, 1),
  faults: fc.subarray([...FAULTS], { minLength: 1 }),
  meter: fc.constantFrom('instruments' as const, 'measure' as const),
});

const item = { type: 'ItemAdded', data: { sku: 'pen', price: 1 } } as const;

/** An error as an outcome names it. */
function errorOf(error: unknown): string {
  if (error instanceof DynafoldError) return error.code;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** What two runs compare of a value: no times, no trace contexts, no run prefix (in values and keys). */
function plain(value: unknown, prefix: string): unknown {
  if (typeof value === 'string') return value.replaceAll(prefix, '');
  if (Array.isArray(value)) return value.map((inner) => plain(inner, prefix));
  if (value instanceof Error) return errorOf(value);
  if (typeof value !== 'object' || value === null) return value;
  const kept = Object.entries(value).filter(([key]) => !['timestamp', 'trace', 'durationMs'].includes(key) && !key.endsWith('At'));
  return Object.fromEntries(kept.map(([key, inner]) => [key.replaceAll(prefix, ''), plain(inner, prefix)]));
}

/** Runs `ops` on the stream instances of `prefix`; resolves what each ended in, then what the store and rows hold. */
async function run(operations: ReadonlyArray<Op>, prefix: string): Promise<unknown[]> {
  const { stream, summaries, projection, streamArn, eventsTable, viewsTable } = tables;
  const orderId = (index: number) => `${prefix}o-${index}`;
  const poisoned = new Projection({
    stream,
    readModel: orderSummaries(client, viewsTable, 'Poisoned'),
    key: (streamId) => ({ orderId: streamId.orderId }),
    initial: (streamId) => initialSummary(streamId.orderId),
    evolve: (state: OrderSummary, event: OrderEvent) => {
      if (event.type === 'ItemAdded') throw new Error('poison');
      return evolveSummary(state, event);
    },
    checkpoint: 'version',
    poison: { park: { afterAttempts: 1 } },
    logger: {},
  });
  const recordsOf = async (id: string, last: boolean) => {
    const records = insertsOnly(await readStreamRecords(streamArn)).filter((record) => eventKeysOf(record.dynamodb?.NewImage).streamId === id);
    return last ? records.slice(-1) : records;
  };
  const outcomes: unknown[] = [];
  for (const op of operations) {
    const id = { orderId: orderId(op.order) };
    try {
      outcomes.push([op.kind, plain(await apply(op), prefix)]);
    } catch (error) {
      outcomes.push([op.kind, { threw: errorOf(error) }]);
    }

    async function apply(op: Op): Promise<unknown> {
      switch (op.kind) {
        case 'append': {
          const events = [{ type: 'OrderPlaced', data: { customer: 'ada' } } as const, ...Array.from({ length: op.events - 1 }, () => item)];
          return stream.append(id, events, op.key === undefined ? {} : { idempotencyKey: `${prefix}${op.key}` });
        }
        case 'appendAt': {
          const version = await stream.version(id);
          return stream.append(id, [item], { expectedVersion: op.stale ? Math.max(0, version - 1) + (version === 0 ? 1 : 0) : version });
        }
        case 'invalid':
          return stream.append(id, [{ type: 'ItemAdded', data: { sku: 'pen', price: 'one' } } as never]);
        case 'execute': {
          let raced = !op.race;
          return stream.execute(id, {
            initial: emptyOrder,
            evolve: evolveOrder,
            decide: async () => {
              if (!raced) {
                raced = true;
                await stream.append(id, [item]);
              }
              return [item];
            },
          });
        }
        case 'load':
          return stream.load(id, { initial: emptyOrder, evolve: evolveOrder }, op.snapshot ? { snapshot: { every: 1 } } : {});
        case 'deliver': {
          const records = await recordsOf(id.orderId, op.last);
          if (op.transport === 'processBatch') return projection.processBatch(records);
          if (op.transport === 'lambda') return lambdaHandler({ projections: { summaries: projection } })(lambdaStreamEvent(records, { streamArn }));
          const kinesis = records.map((record) =>
            toKinesisRecord(record, { streamArn: 'arn:aws:kinesis:ddblocal:000000000000:stream/o', tableName: eventsTable }),
          );
          return kinesisHandler({ projections: { summaries: projection } })({ Records: kinesis });
        }
        case 'rebuild':
          return projection.rebuild(id);
        case 'catchUp':
          return projection.catchUp(id);
        case 'park':
          return poisoned.processBatch(await recordsOf(id.orderId, false), { logger: false });
      }
    }
  }
  const held: unknown[] = [];
  for (const index of ORDERS) {
    const id = { orderId: orderId(index) };
    const events = (await stream.read(id)).map((event: StreamEvent) => [event.version, event.type]);
    held.push(plain({ events, row: await summaries.get(id), poisoned: await poisoned.readModel.get(id) }, prefix));
  }
  const parked: unknown[] = [];
  for await (const row of poisoned.parkedRows()) if (JSON.stringify(row.key).includes(prefix)) parked.push(plain(row.key, prefix));
  // The listing's order is the table's (the keys' hashes, which the run's prefix changes): compared as a set.
  return [outcomes, held, parked.map((key) => JSON.stringify(key)).sort()];
}

test(
  'telemetry never changes an outcome: operations with an SDK that throws at random points end as they do with none',
  async () => {
    await fc.assert(
      fc.asyncProperty(ops, sdks, async (operations, { seed, rate, faults, meter }) => {
        const run1 = ++cases;
        const random = seededRandom(seed);
        const sdk = registerFaultyTelemetry((fault) => faults.includes(fault) && random() < rate, meter);
        let withFaultySdk: unknown[];
        try {
          withFaultySdk = await run(operations, `c${run1}f-`);
        } finally {
          await sdk.shutdown();
        }
        const withoutSdk = await run(operations, `c${run1}p-`);
        expect(JSON.stringify(withFaultySdk)).not.toContain('the SDK fails');
        expect(withFaultySdk).toEqual(withoutSdk);
      }),
      propertySettings(30),
    );
  },
  propertyTimeout(30),
);

/**
 * Concurrent calls on the same rows race on the conditional write: each event is applied by exactly one
 * call, and a row that keeps losing fails alone, reported by its earliest record.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { ConcurrentModificationError, eventsTableDefinition, readModelTableDefinition, type StreamEvent } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { foldSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream, range, type OrderEvent } from '../support/orders';
import { randomInt, seededRandom, shuffle } from '../support/random';
import { asLambdaRecord, eventKeysOf, insertsOnly, readStreamRecords } from '../support/stream-records';

const client = testClient();
const CALLERS = 10;
const ROUNDS = Number(process.env['DYNAFOLD_ROUNDS'] ?? 2);
const BASE_SEED = Number(process.env['DYNAFOLD_SEED'] ?? Date.now() % 100_000);

let stream: ReturnType<typeof orderStream>;
let streamArn: string;
let viewsTable: string;
const orderIds = ['o-a', 'o-b', 'o-c', 'o-d', 'o-e'];
const truth = new Map<string, OrderEvent[]>();

afterAll(() => client.destroy());

beforeAll(async () => {
  const events = await createTestTable(client, eventsTableDefinition, 'race-events');
  streamArn = events.streamArn as string;
  stream = orderStream(client, events.name);
  viewsTable = (await createTestTable(client, (name) => readModelTableDefinition(name, [orderSummaries(client, name)]), 'race-views')).name;
  await Promise.all(
    [...orderIds, 'o-doomed'].map(async (orderId, i) => {
      await stream.append({ orderId }, [{ type: 'OrderPlaced', data: { customer: `c-${i}` } }], { expectedVersion: 0 });
      for (let chunk = 0; chunk < 3; chunk++) {
        await stream.append(
          { orderId },
          [1, 2, 3].map((n) => ({ type: 'ItemAdded' as const, data: { sku: `s-${chunk}-${n}`, price: 10 * chunk + n + i } })),
        );
      }
      await stream.append({ orderId }, [{ type: 'OrderShipped', data: {} }]);
      truth.set(orderId, await stream.read({ orderId }));
    }),
  );
});

const idOf = (event: StreamEvent) => `${event.streamId}@${event.version}`;
const withoutTimestamps = <T extends object>(row: T | undefined) => row && { ...row, createdAt: undefined, updatedAt: undefined };

/** Counts conditional writes that lost on a client, without changing what it sends. */
function countLostWrites(dynamo: DynamoDBClient): { readonly lost: number } {
  const counter = { lost: 0 };
  dynamo.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) counter.lost++;
        throw error;
      }
    },
    { step: 'initialize', name: 'countLostWrites' },
  );
  return counter;
}

test(`${CALLERS} concurrent callers with overlapping shuffled events: every row is the fold, every event applied by exactly one call (base seed ${BASE_SEED})`, async () => {
  const racing = testClient();
  const writes = countLostWrites(racing);
  try {
    const all = orderIds.flatMap((orderId) => truth.get(orderId) ?? []);
    for (let round = 0; round < ROUNDS; round++) {
      const seed = BASE_SEED + round;
      const context = `seed ${seed}`;
      const random = seededRandom(seed);
      const model = orderSummaries(racing, viewsTable, `RaceSummary${seed}`);
      // Each caller gets about half the events, some twice; every row's last event goes to some caller.
      const batches: OrderEvent[][] = Array.from({ length: CALLERS }, () => []);
      for (const event of all) {
        for (const batch of batches) if (random() < 0.5) batch.push(event);
        if (random() < 0.3) batches[randomInt(random, 0, CALLERS - 1)]?.push(event);
      }
      for (const orderId of orderIds) {
        const events = truth.get(orderId) ?? [];
        batches[randomInt(random, 0, CALLERS - 1)]?.push(events[events.length - 1] as OrderEvent);
      }
      // One projection per caller, as on separate Lambda lanes; all of them start together.
      const results = await Promise.all(
        batches.map((batch) =>
          orderSummaryProjection(stream, model)
            .applyBatch(shuffle(batch, random))
            .then((result) => ({ batch, result })),
        ),
      );

      const applied: string[] = [];
      for (const { batch, result } of results) {
        for (const outcome of result.outcomes) {
          expect({ context, status: outcome.status, error: outcome.status === 'failed' ? String(outcome.error) : undefined }).toEqual({
            context,
            status: 'applied',
            error: undefined,
          });
          if (outcome.status !== 'applied') continue;
          // Within one call, applied is in version order and contiguous after what the row had.
          const versions = outcome.applied.map((event) => event.version);
          if (versions.length > 0) expect({ context, versions }).toEqual({ context, versions: range(versions[0] as number, outcome.version) });
          applied.push(...outcome.applied.map(idOf));
          // Each event the caller delivered for the row is either applied now or was applied before.
          const delivered = new Set(batch.filter((event) => event.streamId === outcome.streamId).map(idOf));
          const accounted = [...outcome.applied, ...outcome.alreadyApplied].map(idOf).filter((id) => delivered.has(id));
          expect({ context, accounted: [...accounted].sort() }).toEqual({ context, accounted: [...delivered].sort() });
        }
      }
      expect({ context, duplicates: applied.length - new Set(applied).size }).toEqual({ context, duplicates: 0 });
      expect({ context, applied: [...applied].sort() }).toEqual({ context, applied: all.map(idOf).sort() });
      for (const orderId of orderIds) {
        const row = await model.get({ orderId }, { consistent: true });
        expect({ context, row: withoutTimestamps(row) }).toEqual({ context, row: withoutTimestamps(foldSummary(orderId, truth.get(orderId) ?? [])) });
      }
    }
    // The callers did race: some conditional writes lost and were retried.
    expect(writes.lost).toBeGreaterThan(0);
  } finally {
    racing.destroy();
  }
});

describe('a row whose every write is lost', () => {
  const faulty = testClient();
  let doomedPuts = 0;
  // Every PutItem of the doomed order's row fails its condition before it is sent, as if another writer won.
  faulty.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'PutItemCommand' && JSON.stringify((args as { input?: unknown }).input).includes('o-doomed')) {
        doomedPuts++;
        throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
      }
      return next(args);
    },
    { step: 'initialize', name: 'loseDoomedWrites' },
  );
  afterAll(() => faulty.destroy());

  test('fails with ConcurrentModificationError after its tries while the other rows apply; processBatch reports its earliest record', async () => {
    const model = orderSummaries(faulty, viewsTable, 'DoomedSummary');
    const projection = orderSummaryProjection(stream, model, { attempts: 3 });
    const chosen = new Set(['o-doomed', 'o-a', 'o-b'].map((orderId) => stream.formatStreamId({ orderId })));
    const real = insertsOnly(await readStreamRecords(streamArn))
      .map(asLambdaRecord)
      .filter((record) => chosen.has(String(eventKeysOf(record.dynamodb?.NewImage).streamId)));
    // The doomed order's records come newest first, interleaved with the others: its earliest record
    // (lowest position) is its LAST version, not its first.
    const isDoomed = (record: DynamoDBRecord) => eventKeysOf(record.dynamodb?.NewImage).streamId === 'o-doomed';
    const doomed = real.filter(isDoomed).reverse();
    const others = shuffle(
      real.filter((record) => !isDoomed(record)),
      seededRandom(BASE_SEED),
    );
    const records = others.flatMap((record, i) => (i % 2 === 0 && doomed.length > 0 ? [record, doomed.shift() as DynamoDBRecord] : [record]));
    records.push(...doomed);
    const firstDoomed = records.findIndex(isDoomed);
    expect(eventKeysOf(records[firstDoomed]?.dynamodb?.NewImage).version).toBe(truth.get('o-doomed')?.length);

    doomedPuts = 0;
    const result = await projection.processBatch(records, { source: 'lambda' });

    expect(doomedPuts).toBe(3);
    const byOrder = new Map(result.outcomes.map((outcome) => [String(outcome.key?.['orderId']), outcome]));
    const failed = byOrder.get('o-doomed');
    expect(failed).toMatchObject({ status: 'failed', key: { orderId: 'o-doomed' } });
    const error = failed?.status === 'failed' ? failed.error : undefined;
    expect(error).toBeInstanceOf(ConcurrentModificationError);
    expect(error).toMatchObject({ code: 'projector.concurrentModification', attempts: 3, key: { orderId: 'o-doomed' } });
    expect(failed?.positions).toContain(firstDoomed);
    expect(Math.min(...(failed?.positions ?? []))).toBe(firstDoomed);
    expect(result.failedRecords).toEqual([firstDoomed]);
    expect(result.response).toEqual({ batchItemFailures: [{ itemIdentifier: records[firstDoomed]?.dynamodb?.SequenceNumber }] });
    expect(typeof records[firstDoomed]?.dynamodb?.SequenceNumber).toBe('string');

    expect(await model.get({ orderId: 'o-doomed' }, { consistent: true })).toBeUndefined();
    for (const orderId of ['o-a', 'o-b']) {
      expect(byOrder.get(orderId)).toMatchObject({ status: 'applied', version: truth.get(orderId)?.length });
      expect(withoutTimestamps(await model.get({ orderId }, { consistent: true }))).toEqual(
        withoutTimestamps(foldSummary(orderId, truth.get(orderId) ?? [])),
      );
    }
  });

  test('apply(event) rejects with the ConcurrentModificationError; another row applies', async () => {
    const projection = orderSummaryProjection(stream, orderSummaries(faulty, viewsTable, 'DoomedApply'), { attempts: 3 });
    const [first] = truth.get('o-doomed') ?? [];

    doomedPuts = 0;
    const rejection = projection.apply(first as OrderEvent);
    await expect(rejection).rejects.toBeInstanceOf(ConcurrentModificationError);
    await expect(rejection).rejects.toMatchObject({ code: 'projector.concurrentModification', projection: projection.name });
    expect(doomedPuts).toBe(3);

    await expect(projection.apply((truth.get('o-c') ?? [])[2] as OrderEvent)).resolves.toMatchObject({ status: 'applied', version: 3 });
  });
});

/**
 * Rolling-deploy schedules: two definitions of one Cart stream run at once. Last month's code knows
 * ItemAdded up to type version 2; today's appends it at version 3. Writers of both generations append to the
 * same carts concurrently (at the head, retried on conflict); then the records are delivered shuffled, some
 * twice, in batches on concurrent lanes, each lane running last month's projection until the deploy reaches
 * it (at a seeded delivery), today's after, both on a client that fails a share of its calls, and both
 * parking rows after 1 to 3 counted failures. Every failure here is transient (an event newer code wrote, a
 * throttle, a server error, a timeout, a lost race), so no row may ever be counted towards parking or
 * parked; every event must be applied exactly once, and every row must equal today's fold of its stream
 * with no operator step.
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { EventVersionTooNewError, eventsTableDefinition, isTransient, readModelTableDefinition, type StreamEvent } from 'dynafold';
import {
  asAppended,
  cartProjection,
  cartProjectionV2,
  cartRowModel,
  cartRowOf,
  cartStreamToday,
  cartStreamV2,
  emptyCart,
  evolveCart,
  type CartEvent,
  type WrittenCartEvent,
} from '../__tests__/support/carts';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../__tests__/support/stream-records';
import { injectFaults, quickRetries } from './faults';
import { randomInt, seededRandom, shuffle } from './random';
import { ChaosSummary } from './summary';
import { dropTables, eventKey, uniqueTableName, type ClientConfig } from './world';

const CARTS = ['a', 'b', 'c'] as const;

/**
 * A seeded event as either generation writes it; today's code appends no removal on its own (a rename is
 * deployed in two steps), only beside an item added in one commit (see `drawCommit`).
 */
function drawEvent(random: () => number, generation: 'v2' | 'today'): WrittenCartEvent {
  const sku = random() < 0.5 ? 'x' : 'y';
  const roll = random();
  if (roll < 0.2) return { type: 'CartOpened', data: { owner: random() < 0.5 ? 'ada' : 'bob' } };
  if (roll < 0.75 || generation === 'today')
    return { type: 'ItemAdded', data: { sku, euros: random() < 0.5 ? 0.5 : 2, quantity: randomInt(random, 1, 3) } };
  if (roll < 0.9) return { type: 'Removed', data: { sku } };
  return { type: 'CouponApplied', data: { code: 'WELCOME' } };
}

/**
 * A seeded commit of 1 to 3 events. Some of today's put a removal (a type last month's code never had)
 * before or after an item added (a type version it does not know yet): the commit is too new for that code
 * whichever event it meets first.
 */
function drawCommit(random: () => number, generation: 'v2' | 'today'): WrittenCartEvent[] {
  const events = Array.from({ length: randomInt(random, 1, 3) }, () => drawEvent(random, generation));
  if (generation === 'today' && random() < 0.3 && events.some((event) => event.type === 'ItemAdded')) {
    events.splice(randomInt(random, 0, events.length), 0, { type: 'Removed', data: { sku: random() < 0.5 ? 'x' : 'y' } });
  }
  return events;
}

/** Runs one seeded rolling-deploy schedule in tables of its own, dropped after. */
export async function runRollingDeploy(
  config: ClientConfig,
  client: DynamoDBClient,
  options: { seed: number; faultRate: number },
): Promise<ChaosSummary> {
  const { seed } = options;
  const summary = new ChaosSummary();
  const random = seededRandom(seed ^ 0x0d3b);
  const eventsTable = uniqueTableName('chaos-roll-events');
  const viewsTable = uniqueTableName('chaos-roll-views');
  const faulty = new DynamoDBClient({ ...config, retryStrategy: quickRetries(2) });
  const faults = injectFaults(faulty, {
    seed: seed ^ 0x4011,
    rate: options.faultRate,
    kinds: ['throttle', 'internal', 'timeout', 'conditional', 'lostResponse'],
    readModelTables: [viewsTable],
  });
  try {
    const created = await client.send(new CreateTableCommand(eventsTableDefinition(eventsTable)));
    const streamArn = created.TableDescription?.LatestStreamArn as string;
    await client.send(new CreateTableCommand(readModelTableDefinition(viewsTable, [cartRowModel(client, viewsTable, 'CartRow')])));

    // Both generations append at once, each at the head of the stream, on a client that loses answers of
    // writes it applied: every append must be stored once (the SDK's repeat, or a read after it gave up,
    // finds the append's own commit).
    const writerClient = new DynamoDBClient({ ...config, retryStrategy: quickRetries(4) });
    const writerFaults = injectFaults(writerClient, { seed: seed ^ 0x77a1, rate: options.faultRate, kinds: ['lostResponse'] });
    const writers = { v2: cartStreamV2(writerClient, eventsTable), today: cartStreamToday(writerClient, eventsTable) };
    let appended = 0;
    await Promise.all(
      (['v2', 'today'] as const).map(async (generation) => {
        const appends = randomInt(random, 3, 10);
        for (let n = 0; n < appends; n++) {
          const cart = CARTS[randomInt(random, 0, CARTS.length - 1)] as string;
          const events = drawCommit(random, generation).map((event) => asAppended(generation, event));
          // Read after the await: `appended += await …` would add to the value read before it.
          const result = await writers[generation].append({ cartId: cart }, events as never);
          appended += result.events.length;
        }
      }),
    ).finally(() => writerClient.destroy());
    const records = insertsOnly(await readStreamRecords(streamArn));
    summary.addFaults(new Map([...writerFaults.injected].map(([key, n]) => [`rolling-writer-${key}`, n])));

    const model = cartRowModel(faulty, viewsTable, 'CartRow');
    const afterAttempts = randomInt(random, 1, 3);
    const old = cartProjectionV2(cartStreamV2(faulty, eventsTable), model, 'CartRow', { afterAttempts });
    const today = cartProjection(cartStreamToday(faulty, eventsTable), model, 'CartRow', { afterAttempts });
    // Skipped or not, a decode failure here is too new for last month's code: it is reported all the same.
    const onDecodeFailure = random() < 0.5 ? 'skip' : 'report';
    const applied: StreamEvent[] = [];
    const lanes = deliveryLanes(records, random);
    await Promise.all(
      lanes.map(async (batches) => {
        // The delivery of this lane from which today's code runs.
        const deployAt = randomInt(random, 0, batches.length * 3);
        let deliveries = 0;
        for (let batch of batches) {
          for (let redelivery = 0; batch.length > 0; redelivery++) {
            if (redelivery > 400) {
              summary.problem(`rolling seed ${seed}: a batch was redelivered more than 400 times`);
              return;
            }
            const newCode = deliveries++ >= deployAt;
            const result = await (newCode ? today : old).processBatch(batch, { source: 'lambda', logger: false, onDecodeFailure });
            for (const outcome of result.outcomes) {
              applied.push(...outcome.applied);
              if (outcome.status === 'parked')
                summary.problem(`rolling seed ${seed}: ${newCode ? "today's" : "last month's"} code parked ${JSON.stringify(outcome.key)}`);
              if (outcome.status !== 'failed') continue;
              if (outcome.error instanceof EventVersionTooNewError) summary.tooNewFailures++;
              else if (!isTransient(outcome.error)) summary.problem(`rolling seed ${seed}: a row failed with ${String(outcome.error)}`);
            }
            for (const failure of result.decodeFailures) {
              if (!newCode && failure.error instanceof EventVersionTooNewError) summary.tooNewFailures++;
              else summary.problem(`rolling seed ${seed}: a record failed to decode: ${String(failure.error)}`);
            }
            const first = result.response.batchItemFailures[0];
            if (first === undefined) break;
            batch = batch.slice(batch.findIndex((record) => sequenceOf(record) === first.itemIdentifier));
          }
        }
      }),
    );

    await checkRolling(summary, { seed, client, viewsTable, eventsTable, applied, appended });
    // Part of the delivery schedule it follows: counted among the rolling-deploy schedules, not as a run of its own.
    summary.rollingSchedules = 1;
    summary.events = records.length;
    summary.addFaults(new Map([...faults.injected].map(([key, n]) => [`rolling-${key}`, n])));
    return summary;
  } finally {
    faulty.destroy();
    await dropTables(client, eventsTable, viewsTable);
  }
}

/**
 * Every append stored once (the stream holds the `appended` events its writers were answered), every event
 * applied exactly once, every row today's fold of its stream, no row parked or counted.
 */
async function checkRolling(
  summary: ChaosSummary,
  world: { seed: number; client: DynamoDBClient; viewsTable: string; eventsTable: string; applied: ReadonlyArray<StreamEvent>; appended: number },
): Promise<void> {
  const { seed } = world;
  const model = cartRowModel(world.client, world.viewsTable, 'CartRow');
  const truth = cartStreamToday(world.client, world.eventsTable);
  const counts = new Map<string, number>();
  for (const event of world.applied) counts.set(eventKey(event), (counts.get(eventKey(event)) ?? 0) + 1);
  let stored = 0;
  for (const cart of CARTS) {
    const events = await truth.read(cart);
    stored += events.length;
    for (const event of events) {
      const n = counts.get(eventKey(event)) ?? 0;
      if (n === 0) {
        summary.lostEvents++;
        summary.problem(`rolling seed ${seed}: ${eventKey(event)} never applied`);
      } else if (n > 1) {
        summary.doubleApplied++;
        summary.problem(`rolling seed ${seed}: ${eventKey(event)} applied ${n} times`);
      }
    }
    const item = await model.getItem({ cartId: cart });
    if (item !== undefined && ('_failures' in item || '_parked' in item))
      summary.problem(`rolling seed ${seed}: cart ${cart} holds ${JSON.stringify(item)}`);
    const folded = events.reduce((state, event) => evolveCart(state, event as CartEvent), emptyCart);
    const want = events.length === 0 ? undefined : cartRowOf(cart, folded, events.length);
    const row = await model.get({ cartId: cart });
    summary.rowsChecked++;
    if (sorted(withoutTimes(row)) !== sorted(want)) {
      summary.divergedRows++;
      summary.problem(`rolling seed ${seed}: cart ${cart} is ${JSON.stringify(row)}, its fold ${JSON.stringify(want)}`);
    }
  }
  if (stored !== world.appended)
    summary.problem(`rolling seed ${seed}: the writers were answered ${world.appended} events, the stream holds ${stored}`);
}

/** A row without its timestamps. */
function withoutTimes(row: object | undefined): object | undefined {
  if (row === undefined) return undefined;
  const { createdAt: _created, updatedAt: _updated, ...rest } = row as Record<string, unknown>;
  return rest;
}

/** JSON with every object's fields sorted, so that two rows compare by content. */
function sorted(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    typeof field === 'object' && field !== null && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => a.localeCompare(b)))
      : field,
  );
}

function sequenceOf(record: unknown): string | undefined {
  return (record as _Record).dynamodb?.SequenceNumber;
}

/** Shuffled, some records twice, half in Lambda's shape, in batches of 1–10 on 1–4 concurrent lanes. */
function deliveryLanes(records: ReadonlyArray<_Record>, random: () => number): unknown[][][] {
  const copies = shuffle(
    records.flatMap((record) => (random() < 0.3 ? [record, record] : [record])),
    random,
  );
  const lanes: unknown[][][] = Array.from({ length: randomInt(random, 1, 4) }, () => []);
  for (let start = 0; start < copies.length;) {
    const size = randomInt(random, 1, 10);
    lanes[randomInt(random, 0, lanes.length - 1)]?.push(
      copies.slice(start, start + size).map((record) => (random() < 0.5 ? asLambdaRecord(record) : record)),
    );
    start += size;
  }
  return lanes;
}

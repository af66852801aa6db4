import type { DynamoDBRecord } from 'aws-lambda';
import type { Summary } from '../support/orders';
import { EVENTS_PER_ORDER, inOrderLanes } from './projection';
import { deliverOnLanes } from '../support/lanes';
import { loadIds } from './load';
import { sample, unmetered, type Metered, type Sample } from './measure';

/** Streams an operation kind spreads its operations over in a round. */
const STREAMS = 10;

/** One kind of operation the CPU rounds time, one at a time: what it is and how one runs. */
export interface CpuOperation {
  readonly name: string;
  /** Operations a round runs (the projection: one delivery of every record). */
  readonly count: number;
  /** Runs the round's `count` operations one after another; resolves how many operations (or events) they were. */
  run(m: Metered, round: number, count: number): Promise<number>;
  /** Peers without it (snapshots) leave it out. */
  readonly available?: (m: Metered) => boolean;
}

/** Appends of `size` events, each at the version its writer's own last append left. */
function appends(size: number, count: number): CpuOperation {
  return {
    name: size === 1 ? 'append 1 event' : `append ${size} events`,
    count,
    async run(m, round, count) {
      const versions = new Map<string, number>();
      for (let i = 0; i < count; i++) {
        const orderId = `cpu-a${size}-r${round}-s${i % STREAMS}`;
        const version = versions.get(orderId) ?? 0;
        await m.peer.append(orderId, version, size);
        versions.set(orderId, version + size);
      }
      return count;
    },
  };
}

const command = (count: number): CpuOperation => ({
  name: 'command (load, decide 1, append)',
  count,
  async run(m, round, count) {
    for (let i = 0; i < count; i++) await m.peer.command(`cpu-c-r${round}-s${i % STREAMS}`);
    return count;
  },
});

/** Loads of the streams of `length` events the load lines read (see `fillForLoad`), from a snapshot or not. */
function loads(length: number, perLength: number, snapshot: boolean, count: number): CpuOperation {
  return {
    name: `load ${length} events${snapshot ? ' from a snapshot' : ''}`,
    count,
    available: (m) => !snapshot || m.peer.loadWithSnapshot !== undefined,
    async run(m, _round, count) {
      const ids = loadIds(length, perLength);
      const load = (snapshot ? m.peer.loadWithSnapshot : m.peer.load) as (orderId: string) => Promise<Summary>;
      for (let i = 0; i < count; i++) {
        const orderId = ids[i % ids.length] as string;
        const state = await load(orderId);
        if (state.version !== length) throw new Error(`${m.peer.name} loaded ${orderId} at version ${state.version}, not ${length}`);
      }
      return count;
    },
  };
}

/**
 * Events a round of the projection projects at least: the records are delivered to as many fresh
 * projections as that takes, so that a round's CPU is not a few milliseconds, which a collection or a
 * timer of the process's would double (the quick run's 20 orders are 200 events).
 */
export const PROJECTED_PER_ROUND = 2_000;

/**
 * The peer's projection of its own stream records, delivered in order (one lane, batches of 100) to a fresh
 * projection, and again to another until `PROJECTED_PER_ROUND` events were projected: per event.
 */
function projection(recordsOf: (m: Metered) => ReadonlyArray<DynamoDBRecord>, orders: number): CpuOperation {
  const events = orders * EVENTS_PER_ORDER;
  const deliveries = Math.max(1, Math.ceil(PROJECTED_PER_ROUND / events));
  return {
    name: 'projection in order, per event',
    count: deliveries,
    async run(m, round) {
      for (let delivery = 0; delivery < deliveries; delivery++) {
        const projector = await m.peer.projector(`Cpu${round}d${delivery}`);
        const outcome = await deliverOnLanes(inOrderLanes(recordsOf(m)), (batch) => projector.project(batch), 2);
        if (outcome.givenUp > 0) throw new Error(`${m.peer.name} gave up ${outcome.givenUp} records`);
      }
      return deliveries * events;
    },
  };
}

/** The operation kinds of the CPU rounds, `count` operations a round (a tenth of it for loads of 1,000 events). */
export function cpuOperations(
  count: number,
  perLength: number,
  recordsOf: (m: Metered) => ReadonlyArray<DynamoDBRecord>,
  orders: number,
): CpuOperation[] {
  return [
    appends(1, count),
    appends(5, count),
    command(count),
    loads(10, perLength, false, count),
    loads(10, perLength, true, count),
    loads(1000, perLength, false, Math.max(1, Math.round(count / 10))),
    projection(recordsOf, orders),
  ];
}

/**
 * One round of an operation kind for one peer, its counting middleware passed over: `count` operations one
 * at a time, so the process's CPU over the round is the peer's (and the SDK's) per operation, nothing else
 * running beside it. `events` of the sample counts operations (events, for the projection).
 */
export function cpuRound(m: Metered, operation: CpuOperation, round: number): Promise<Sample> {
  return unmetered(m, async () => {
    let done = 0;
    const s = await sample(m, 1, async () => {
      done = await operation.run(m, round, operation.count);
      return 0;
    });
    return { ...s, events: done };
  });
}

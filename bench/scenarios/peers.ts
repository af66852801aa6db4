import { appendRound, commandRound, contendedRound, warmUp, APPEND_WRITERS, EVENTS_PER_APPEND } from '../peers/append';
import { castorePeer } from '../peers/castore-peer';
import { dynafoldPeer } from '../peers/dynafold-peer';
import { equinoxPeer } from '../peers/equinox-peer';
import { GUARANTEES } from '../peers/guarantees';
import { fillForLoad, loadRound, LOAD_LENGTHS } from '../peers/load';
import { alternate, metered, summed, type Metered, type Sample, type Summed } from '../peers/measure';
import { deliver, expectedSummary, inOrderLanes, projectedIds, recordsOf, shuffledLanes, writeWorkload, type Delivery } from '../peers/projection';
import { ON_DEMAND_PRICES } from '../cost/pricing';
import { clients } from '../support/local';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { median, sum } from '../support/stats';

const SCENARIO = '9 peers';

/** Sizes of a run: the quick one is a small version of each line (10 writers on the hot stream, not 50). */
function sizes(quick: boolean) {
  return quick
    ? {
        appendRounds: 2,
        appendsPerWriter: 2,
        commandsPerWriter: 3,
        contendedRounds: 2,
        contendedWriters: 10,
        contendedPerWriter: 1,
        loadRounds: 2,
        perLength: 1,
        orders: 20,
        deliveries: 1,
      }
    : {
        appendRounds: 4,
        appendsPerWriter: 40,
        commandsPerWriter: 20,
        contendedRounds: 4,
        contendedWriters: 50,
        contendedPerWriter: 3,
        loadRounds: 6,
        perLength: 3,
        orders: 300,
        deliveries: 2,
      };
}

/** A figure of dynafold beside the same figure of each peer, with the ratio dynafold ÷ peer. */
function compare(measure: string, ours: number, theirs: ReadonlyMap<string, number | string>, ratio = true): Row[] {
  return [...theirs].map(([peer, value]) => ({
    scenario: SCENARIO,
    measure,
    dynafold: ours,
    baseline: value,
    against: peer,
    ...(ratio && typeof value === 'number' && value !== 0 ? { ratio: ours / value } : {}),
  }));
}

/** Rows of throughput, latency and cost from summed samples of every peer. */
function sampleRows(label: string, by: ReadonlyMap<string, Summed>, figures: ReadonlyArray<[string, (s: Summed) => number]>): Row[] {
  const ours = by.get('dynafold');
  if (ours === undefined) return [];
  const peers = [...by].filter(([name]) => name !== 'dynafold');
  return figures.flatMap(([measure, pick]) => compare(`${label}: ${measure}`, pick(ours), new Map(peers.map(([name, s]) => [name, pick(s)]))));
}

/** AWS's bill beside DynamoDB Local's units: billed write and read units per event and on-demand dollars per million events. */
const BILLED: ReadonlyArray<[string, (s: Summed) => number]> = [
  ['AWS-billed write units/event ↓', (s) => s.billedWriteUnitsPerEvent],
  ['AWS-billed read units/event ↓', (s) => s.billedReadUnitsPerEvent],
  ['$ per million events (on-demand us-east-1) ↓', (s) => s.dollarsPerMillionEvents],
];

/**
 * The goals the peers are held to: on every line AWS bills no more than each peer's (the projection against
 * Castore only: equinox-js's ends at its index), and appends at expected versions as many events a second as
 * equinox-js's. Other figures are shown without a target.
 */
function withGoal(row: Row): Row {
  if (typeof row.baseline !== 'number' || typeof row.dynafold !== 'number') return row;
  if (row.measure.includes('$ per million') && row.against !== 'equinox-js (index only)') {
    return { ...row, target: '≤ 1.00×', pass: row.dynafold <= row.baseline * (1 + 1e-9) };
  }
  if (row.measure.startsWith('append ') && row.measure.endsWith('events/s ↑') && row.against === 'equinox-js') {
    return { ...row, target: '≥ 1.00×', pass: row.dynafold >= row.baseline };
  }
  return row;
}

const sumUp = (samples: Map<string, Sample[]>) => new Map([...samples].map(([name, list]) => [name, summed(list)]));

/**
 * dynafold against equinox-js (DynamoStore) and Castore (DynamoDB adapter), each used as its documentation
 * shows, on the same DynamoDB Local in the same run, measured in rounds that rotate their order: appends
 * of 5 and of 1 event with expected versions, commands, 50 writers on one stream, loads of 10, 100 and
 * 1,000 events (and from a snapshot), and projection of the real stream records delivered as Lambda
 * does, in order and shuffled.
 */
export const peers: Scenario = {
  name: 'peers',
  title: 'Peers: equinox-js and Castore',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const size = sizes(context.quick);
    const all: Metered[] = [];
    const reader = clients(context.endpoint);
    const rows: Row[] = [];
    const details: Record<string, unknown> = { size };
    try {
      for (const factory of [dynafoldPeer, equinoxPeer, castorePeer]) all.push(await metered(factory, context.endpoint, 'peers'));
      for (const m of all) await warmUp(m);

      const appends = sumUp(await alternate(all, size.appendRounds, (m, round) => appendRound(m, round, size.appendsPerWriter)));
      context.log(`  append: ${JSON.stringify(Object.fromEntries(appends))}`);
      rows.push(
        ...sampleRows(`append ${APPEND_WRITERS} writers × ${EVENTS_PER_APPEND} events`, appends, [
          ['events/s ↑', (s) => s.eventsPerSecond],
          ['p50 ms ↓', (s) => s.p50],
          ['p99 ms ↓', (s) => s.p99],
          ['requests/event ↓', (s) => s.requestsPerEvent],
          ['write units/event ↓', (s) => s.writeUnitsPerEvent],
          ...BILLED,
        ]),
      );

      // The same number of events, one an append, each at the version of the writer's own last append.
      const singles = sumUp(
        await alternate(all, size.appendRounds, (m, round) => appendRound(m, round, size.appendsPerWriter * EVENTS_PER_APPEND, 1)),
      );
      context.log(`  append one: ${JSON.stringify(Object.fromEntries(singles))}`);
      rows.push(
        ...sampleRows(`append ${APPEND_WRITERS} writers × 1 event`, singles, [
          ['events/s ↑', (s) => s.eventsPerSecond],
          ['p50 ms ↓', (s) => s.p50],
          ['requests/event ↓', (s) => s.requestsPerEvent],
          ...BILLED,
        ]),
      );
      details['appendOne'] = Object.fromEntries(singles);

      const commands = sumUp(await alternate(all, size.appendRounds, (m, round) => commandRound(m, round, size.commandsPerWriter)));
      context.log(`  command: ${JSON.stringify(Object.fromEntries(commands))}`);
      rows.push(
        ...sampleRows(`command (load + 1 event), ${APPEND_WRITERS} writers`, commands, [
          ['events/s ↑', (s) => s.eventsPerSecond],
          ['p50 ms ↓', (s) => s.p50],
          ['requests/event ↓', (s) => s.requestsPerEvent],
          ...BILLED,
        ]),
      );
      details['command'] = Object.fromEntries(commands);

      const contended = sumUp(
        await alternate(all, size.contendedRounds, (m, round) => contendedRound(m, round, size.contendedWriters, size.contendedPerWriter)),
      );
      context.log(`  contended: ${JSON.stringify(Object.fromEntries(contended))}`);
      rows.push(
        ...sampleRows(`${size.contendedWriters} writers, 1 stream`, contended, [
          ['events/s ↑', (s) => s.eventsPerSecond],
          ['p50 ms ↓', (s) => s.p50],
          ['p99 ms ↓', (s) => s.p99],
          ['conflicts/event', (s) => s.conflictsPerEvent],
          ['requests/event ↓', (s) => s.requestsPerEvent],
          ['write units/event ↓', (s) => s.writeUnitsPerEvent],
          ...BILLED,
        ]),
      );
      details['append'] = Object.fromEntries(appends);
      details['contended'] = Object.fromEntries(contended);

      for (const m of all) await fillForLoad(m, size.perLength);
      const loads: Record<string, unknown> = {};
      for (const length of LOAD_LENGTHS) {
        for (const snapshot of [false, true]) {
          const able = all.filter((m) => !snapshot || m.peer.loadWithSnapshot !== undefined);
          const by = sumUp(await alternate(able, size.loadRounds, (m) => loadRound(m, length, size.perLength, snapshot)));
          loads[`${length}${snapshot ? '+snapshot' : ''}`] = Object.fromEntries(by);
          const label = `load ${length} events${snapshot ? ', from a snapshot' : ''}`;
          const ours = by.get('dynafold') as Summed;
          const figure = (pick: (s: Summed) => number) =>
            new Map(
              all
                .filter((m) => m.peer.name !== 'dynafold')
                .map((m) => [m.peer.name, by.get(m.peer.name) === undefined ? 'n/a: no snapshots' : pick(by.get(m.peer.name) as Summed)]),
            );
          rows.push(
            ...compare(
              `${label}: p50 ms ↓`,
              ours.p50,
              figure((s) => s.p50),
            ),
            ...compare(
              `${label}: read units ↓`,
              ours.readUnitsPerEvent,
              figure((s) => s.readUnitsPerEvent),
            ),
            ...compare(
              `${label}: requests ↓`,
              ours.requestsPerEvent,
              figure((s) => s.requestsPerEvent),
            ),
            ...compare(
              `${label}: AWS-billed read units ↓`,
              ours.billedReadUnitsPerEvent,
              figure((s) => s.billedReadUnitsPerEvent),
            ),
            ...compare(
              `${label}: $ per million loads (on-demand us-east-1) ↓`,
              ours.dollarsPerMillionEvents,
              figure((s) => s.dollarsPerMillionEvents),
            ),
          );
        }
      }
      details['load'] = loads;

      const orderIds = projectedIds(size.orders);
      const expected = orderIds.map(expectedSummary);
      for (const m of all) await writeWorkload(m, orderIds);
      const records = new Map<string, Awaited<ReturnType<typeof recordsOf>>>();
      for (const m of all) records.set(m.peer.name, await recordsOf(reader.streams, m));
      const deliveries: Record<string, Map<string, Delivery[]>> = {};
      for (const mode of ['in order', 'shuffled'] as const) {
        const by = new Map<string, Delivery[]>(all.map((m) => [m.peer.name, []]));
        await alternate(all, size.deliveries, async (m, round) => {
          const input = records.get(m.peer.name) ?? [];
          const delivery = await deliver(
            m,
            `${mode === 'in order' ? 'Ordered' : 'Shuffled'}${round}`,
            mode === 'in order' ? inOrderLanes(input) : shuffledLanes(input, 42 + round),
            expected,
          );
          by.get(m.peer.name)?.push(delivery);
          return delivery;
        });
        deliveries[mode] = by;
        const s = sumUp(by);
        const label = `projection ${mode === 'in order' ? 'in order, PF 1' : 'shuffled, PF 10'}`;
        const projected: Row[] = [];
        projected.push(
          ...sampleRows(label, s, [
            ['events/s ↑', (x) => x.eventsPerSecond],
            ['p50 ms per batch ↓', (x) => x.p50],
            ['p95 ms per batch ↓', (x) => x.p95],
            ['requests/event ↓', (x) => x.requestsPerEvent],
            ['read units/event ↓', (x) => x.readUnitsPerEvent],
            ['write units/event ↓', (x) => x.writeUnitsPerEvent],
            ...BILLED,
          ]),
        );
        const wrong = (name: string) => sum((by.get(name) ?? []).map((d) => d.wrong));
        const givenUp = (name: string) => sum((by.get(name) ?? []).map((d) => d.givenUp));
        const peerNames = all.map((m) => m.peer.name).filter((n) => n !== 'dynafold');
        projected.push(
          ...compare(`${label}: rows ≠ fold (equinox-js: index) ↓`, wrong('dynafold'), new Map(peerNames.map((n) => [n, wrong(n)])), false),
          ...compare(`${label}: records given up ↓`, givenUp('dynafold'), new Map(peerNames.map((n) => [n, givenUp(n)])), false),
        );
        // equinox-js's installable pipeline ends at its index: say so beside each of its figures.
        rows.push(...projected.map((row) => (row.against === 'equinox-js' ? { ...row, against: 'equinox-js (index only)' } : row)));
      }
      details['projection'] = Object.fromEntries(Object.entries(deliveries).map(([mode, by]) => [mode, Object.fromEntries(by)]));
      context.log(`  projection: ${JSON.stringify(details['projection'], (k, v) => (k === 'latencies' ? median(v as number[]) : v))}`);
    } finally {
      for (const m of all) m.peer.destroy();
      reader.destroy();
    }
    return {
      rows: rows.map(withGoal),
      notes: [
        ...GUARANTEES,
        `Rounds rotate the peers' order (${size.appendRounds} append, ${size.contendedRounds} contended, ${size.loadRounds} load rounds); events/s is the median round, percentiles pool the rounds.`,
        'Capacity units are what DynamoDB Local reports with ReturnConsumedCapacity TOTAL (set on every request by middleware); it does not double transactional writes as AWS bills them.',
        `AWS-billed units: every request each library sent, priced by AWS's rules (bench/cost/pricing.ts: writes per 1 KB, reads per 4 KB, a Query's items summed, eventually consistent at half, transaction items twice, UpdateItem at the larger size, index writes on top) at on-demand us-east-1 prices ($${ON_DEMAND_PRICES.dollarsPerMillionWriteUnits} per million write units, $${ON_DEMAND_PRICES.dollarsPerMillionReadUnits} per million read units). Stream reads by Lambda are free and not counted.`,
        "Projection: the peers' real stream records in batches of 100 with Lambda's retry contract (MaximumRetryAttempts 2): in order on one lane (ParallelizationFactor 1, the default), and shuffled, dealt round-robin to 10 lanes; latency is per handler call. equinox-js figures stop at its index (no row): not comparable with a row's cost.",
      ],
      details,
    };
  },
};

import { appendRound, commandRound, contendedRound, warmUp, APPEND_WRITERS, EVENTS_PER_APPEND } from '../peers/append';
import { barePeer } from '../peers/bare-peer';
import { castorePeer } from '../peers/castore-peer';
import { PROJECTED_PER_ROUND, cpuOperations, cpuRound } from '../peers/cpu';
import { dynafoldPeer } from '../peers/dynafold-peer';
import { equinoxPeer } from '../peers/equinox-peer';
import { GUARANTEES } from '../peers/guarantees';
import { fillForLoad, loadRound, LOAD_LENGTHS } from '../peers/load';
import { alternate, metered, RoundFigures, summed, type Metered, type Sample } from '../peers/measure';
import { deliver, expectedSummary, inOrderLanes, projectedIds, recordsOf, shuffledLanes, writeWorkload, type Delivery } from '../peers/projection';
import { BARE, TWIN, compare, lineRows, withGoal, type Figure, type Rounds } from '../peers/rows';
import { ON_DEMAND_PRICES } from '../cost/pricing';
import { clients } from '../support/local';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { median, sum } from '../support/stats';

/**
 * Sizes of a run. The quick one has 10 writers on the hot stream (not 50) and shorter rounds, but as many
 * rounds as it takes for two quick runs in a row to agree on each ratio within ±10% on a shared 2-core machine.
 */
function sizes(quick: boolean) {
  return quick
    ? {
        appendRounds: 16,
        appendsPerWriter: 6,
        commandsPerWriter: 12,
        contendedRounds: 24,
        contendedWriters: 10,
        contendedPerWriter: 4,
        loadRounds: 12,
        perLength: 2,
        loadsPerRound: 12,
        orders: 20,
        deliveries: 1,
        cpuRounds: 8,
        cpuOperations: 40,
      }
    : {
        appendRounds: 8,
        appendsPerWriter: 20,
        commandsPerWriter: 30,
        contendedRounds: 8,
        contendedWriters: 50,
        contendedPerWriter: 3,
        loadRounds: 8,
        perLength: 3,
        loadsPerRound: 24,
        orders: 300,
        deliveries: 2,
        cpuRounds: 8,
        cpuOperations: 100,
      };
}

/**
 * CPU rounds of each operation run before the measured ones. With one, the projection's first two measured
 * rounds still ran 1.35–1.56× the bare SDK's CPU and the later ones 1.11–1.40× (dynafold's CPU per event
 * falling from 70 µs to 50 over the rounds, the bare SDK's from 48 to 40): still compiling, not steady.
 */
const CPU_WARM_UP_ROUNDS = 3;

const eventsPerSecond: Figure = { measure: 'events/s ↑', pick: (s) => s.eventsPerSecond, round: RoundFigures.eventsPerSecond, bare: true };
const p50: Figure = { measure: 'p50 ms ↓', pick: (s) => s.p50, round: RoundFigures.p50, bare: true };
const p99: Figure = { measure: 'p99 ms ↓', pick: (s) => s.p99, round: RoundFigures.p99 };
const counted = (measure: string, pick: (s: ReturnType<typeof summed>) => number): Figure => ({ measure, pick });

/** AWS's bill beside DynamoDB Local's units: billed write and read units per event and on-demand dollars per million events. */
const BILLED: ReadonlyArray<Figure> = [
  counted('AWS-billed write units/event ↓', (s) => s.billedWriteUnitsPerEvent),
  counted('AWS-billed read units/event ↓', (s) => s.billedReadUnitsPerEvent),
  counted('$ per million events (on-demand us-east-1) ↓', (s) => s.dollarsPerMillionEvents),
];

const byName = (samples: Map<string, Sample[]>): Rounds => samples;
const summedOf = (samples: Rounds) => Object.fromEntries([...samples].map(([name, list]) => [name, summed(list)]));

/**
 * dynafold against equinox-js (DynamoStore) and Castore (DynamoDB adapter), each used as its documentation
 * shows, and against its own requests sent by hand through the bare SDK, on the same DynamoDB Local in the
 * same run, in rounds that rotate their order: appends of 5 and of 1 event with expected versions, commands,
 * many writers on one stream, loads of 10, 100 and 1,000 events (and from a snapshot), projection of the
 * real stream records delivered as Lambda does, in order and shuffled; then this process's CPU per
 * operation, one operation at a time with the counting middleware passed over.
 */
export const peers: Scenario = {
  name: 'peers',
  title: 'Peers: equinox-js, Castore and the bare SDK',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const size = sizes(context.quick);
    const all: Metered[] = [];
    const twins: Metered[] = [];
    const reader = clients(context.endpoint);
    const rows: Row[] = [];
    const details: Record<string, unknown> = { size };
    try {
      for (const factory of [dynafoldPeer, equinoxPeer, castorePeer, barePeer]) all.push(await metered(factory, context.endpoint, 'peers'));
      // The lines where dynafold and a peer are close also run dynafold a second time: the A/A ratio.
      const twin = await metered(
        async (endpoint, prefix) => ({ ...(await dynafoldPeer(endpoint, prefix)), name: TWIN }),
        context.endpoint,
        'peers-aa',
      );
      twins.push(twin);
      const withTwin = [...all, twin];
      for (const m of withTwin) await warmUp(m);

      const appends = byName(await alternate(all, size.appendRounds, (m, round) => appendRound(m, round, size.appendsPerWriter)));
      details['append'] = summedOf(appends);
      context.log(`  append: ${JSON.stringify(details['append'])}`);
      rows.push(
        ...lineRows(`append ${APPEND_WRITERS} writers × ${EVENTS_PER_APPEND} events`, appends, [
          eventsPerSecond,
          p50,
          p99,
          counted('requests/event ↓', (s) => s.requestsPerEvent),
          counted('write units/event ↓', (s) => s.writeUnitsPerEvent),
          ...BILLED,
        ]),
      );

      // The same number of events, one an append, each at the version of the writer's own last append.
      const singles = byName(
        await alternate(withTwin, size.appendRounds, (m, round) => appendRound(m, round, size.appendsPerWriter * EVENTS_PER_APPEND, 1)),
      );
      details['appendOne'] = summedOf(singles);
      context.log(`  append one: ${JSON.stringify(details['appendOne'])}`);
      rows.push(
        ...lineRows(`append ${APPEND_WRITERS} writers × 1 event`, singles, [
          eventsPerSecond,
          p50,
          counted('requests/event ↓', (s) => s.requestsPerEvent),
          ...BILLED,
        ]),
      );

      const commands = byName(await alternate(withTwin, size.appendRounds, (m, round) => commandRound(m, round, size.commandsPerWriter)));
      details['command'] = summedOf(commands);
      context.log(`  command: ${JSON.stringify(details['command'])}`);
      rows.push(
        ...lineRows(`command (load + 1 event), ${APPEND_WRITERS} writers`, commands, [
          eventsPerSecond,
          p50,
          counted('requests/event ↓', (s) => s.requestsPerEvent),
          ...BILLED,
        ]),
      );

      const contended = byName(
        await alternate(all, size.contendedRounds, (m, round) => contendedRound(m, round, size.contendedWriters, size.contendedPerWriter)),
      );
      details['contended'] = summedOf(contended);
      context.log(`  contended: ${JSON.stringify(details['contended'])}`);
      rows.push(
        ...lineRows(`${size.contendedWriters} writers, 1 stream`, contended, [
          eventsPerSecond,
          p50,
          p99,
          { measure: 'conflicts/event', pick: (s) => s.conflictsPerEvent, bare: true },
          counted('requests/event ↓', (s) => s.requestsPerEvent),
          counted('write units/event ↓', (s) => s.writeUnitsPerEvent),
          ...BILLED,
        ]),
      );

      for (const m of all) await fillForLoad(m, size.perLength);
      const loads: Record<string, unknown> = {};
      for (const length of LOAD_LENGTHS) {
        for (const snapshot of [false, true]) {
          const able = all.filter((m) => !snapshot || m.peer.loadWithSnapshot !== undefined);
          const by = byName(await alternate(able, size.loadRounds, (m) => loadRound(m, length, size.perLength, snapshot, size.loadsPerRound)));
          loads[`${length}${snapshot ? '+snapshot' : ''}`] = summedOf(by);
          const label = `load ${length} events${snapshot ? ', from a snapshot' : ''}`;
          rows.push(
            ...lineRows(label, by, [
              p50,
              counted('read units ↓', (s) => s.readUnitsPerEvent),
              counted('requests ↓', (s) => s.requestsPerEvent),
              counted('AWS-billed read units ↓', (s) => s.billedReadUnitsPerEvent),
              counted('$ per million loads (on-demand us-east-1) ↓', (s) => s.dollarsPerMillionEvents),
            ]),
          );
          if (snapshot)
            rows.push(...compare(`${label}: p50 ms ↓`, summed(by.get('dynafold') ?? []).p50, new Map([['Castore', 'n/a: no snapshots']])));
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
        rows.push(...projectionRows(mode, by));
      }
      details['projection'] = Object.fromEntries(Object.entries(deliveries).map(([mode, by]) => [mode, Object.fromEntries(by)]));
      context.log(`  projection: ${JSON.stringify(details['projection'], (k, v) => (k === 'latencies' ? median(v as number[]) : v))}`);

      // Last: the CPU rounds write nothing the metered lines read, and the bill does not see what they write.
      const cpu: Record<string, unknown> = {};
      for (const operation of cpuOperations(size.cpuOperations, size.perLength, (m) => records.get(m.peer.name) ?? [], size.orders)) {
        const able = all.filter((m) => operation.available?.(m) ?? true);
        // Warm-up rounds each, not counted: V8 compiles a library's code as it runs it, so the first rounds of
        // an operation little run before (the projection's) would measure the compiler as much as the library.
        for (let warm = 0; warm < CPU_WARM_UP_ROUNDS; warm++) for (const m of able) await cpuRound(m, operation, size.cpuRounds + warm);
        const by = byName(await alternate(able, size.cpuRounds, (m, round) => cpuRound(m, operation, round)));
        cpu[operation.name] = Object.fromEntries([...by].map(([name, list]) => [name, list.map((s) => (s.cpuMs * 1000) / s.events)]));
        const perOperation: Figure = { measure: 'µs ↓', pick: (s) => s.cpuUsPerEvent, round: RoundFigures.cpuUsPerEvent, bare: true };
        const projected = lineRows(`CPU per operation, ${operation.name}`, by, [perOperation]);
        rows.push(...projected.map((row) => (operation.name.startsWith('projection') && row.against === 'equinox-js' ? indexOnly(row) : row)));
      }
      details['cpuUsPerOperation'] = cpu;
      context.log(`  CPU µs per operation, by round: ${JSON.stringify(cpu)}`);
    } finally {
      for (const m of [...all, ...twins]) m.peer.destroy();
      reader.destroy();
    }
    return { rows: rows.map(withGoal), notes: notes(size), details };
  },
};

/** equinox-js's installable pipeline ends at its index: said beside each of its projection figures. */
const indexOnly = (row: Row): Row => ({ ...row, against: 'equinox-js (index only)' });

function projectionRows(mode: 'in order' | 'shuffled', by: Map<string, Delivery[]>): Row[] {
  const label = `projection ${mode === 'in order' ? 'in order, PF 1' : 'shuffled, PF 10'}`;
  const rows = lineRows(label, by, [
    eventsPerSecond,
    counted('p50 ms per batch ↓', (x) => x.p50),
    counted('p95 ms per batch ↓', (x) => x.p95),
    counted('requests/event ↓', (x) => x.requestsPerEvent),
    counted('read units/event ↓', (x) => x.readUnitsPerEvent),
    counted('write units/event ↓', (x) => x.writeUnitsPerEvent),
    ...BILLED,
  ]);
  const total = (name: string, pick: (d: Delivery) => number) => sum((by.get(name) ?? []).map(pick));
  const others = [...by.keys()].filter((name) => name !== 'dynafold');
  rows.push(
    ...compare(
      `${label}: rows ≠ fold (equinox-js: index) ↓`,
      total('dynafold', (d) => d.wrong),
      new Map(others.map((n) => [n, total(n, (d) => d.wrong)])),
      false,
    ),
    ...compare(
      `${label}: records given up ↓`,
      total('dynafold', (d) => d.givenUp),
      new Map(others.map((n) => [n, total(n, (d) => d.givenUp)])),
      false,
    ),
  );
  return rows.map((row) => (row.against === 'equinox-js' ? indexOnly(row) : row));
}

function notes(size: ReturnType<typeof sizes>): string[] {
  return [
    ...GUARANTEES,
    `${BARE}: dynafold's requests sent by hand with the document client on dynafold's table layout, and nothing else (no validation, no spans, no decoding beyond reading attributes, no backoff): the CPU dynafold is held to.`,
    `Rounds rotate the libraries' order (${size.appendRounds} append, ${size.contendedRounds} contended, ${size.loadRounds} load rounds of ${size.loadsPerRound} loads, ${size.cpuRounds} CPU rounds); events/s is the median round, percentiles pool the rounds. A ratio with a spread is the median of the rounds' ratios (each round's figures ran within seconds of each other), the spread their lowest and highest.`,
    `${TWIN}: dynafold once more, on tables of its own, in the rounds of the one-event appends and the commands: dynafold ÷ ${TWIN} is the same code measured twice, so a peer's ratio inside its spread is a tie the bench can't tell apart.`,
    `CPU per operation: after ${CPU_WARM_UP_ROUNDS} warm-up rounds of each operation for each library, this process's user + system time over ${size.cpuOperations} operations run one at a time (a tenth of that for loads of 1,000 events, in-order deliveries of every record to fresh projections for the projection, ${PROJECTED_PER_ROUND} events at least), the counting middleware passed over; DynamoDB Local's CPU is its own process's. Tracing: @opentelemetry/api is installed and no SDK is registered, as in most apps.`,
    'Capacity units are what DynamoDB Local reports with ReturnConsumedCapacity TOTAL (set on every request by middleware); it does not double transactional writes as AWS bills them.',
    `AWS-billed units: every request each library sent, priced by AWS's rules (bench/cost/pricing.ts: writes per 1 KB, reads per 4 KB, a Query's items summed, eventually consistent at half, transaction items twice, UpdateItem at the larger size, index writes on top) at on-demand us-east-1 prices ($${ON_DEMAND_PRICES.dollarsPerMillionWriteUnits} per million write units, $${ON_DEMAND_PRICES.dollarsPerMillionReadUnits} per million read units). Stream reads by Lambda are free and not counted.`,
    "Projection: the peers' real stream records in batches of 100 with Lambda's retry contract (MaximumRetryAttempts 2): in order on one lane (ParallelizationFactor 1, the default), and shuffled, dealt round-robin to 10 lanes; latency is per handler call. equinox-js figures stop at its index (no row): not comparable with a row's cost.",
  ];
}

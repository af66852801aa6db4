import { billed, type Billed } from '../cost/billed';
import { dollars } from '../cost/pricing';
import { capacity, type Capacity } from './capacity';
import { meter, type Meter } from '../support/meter';
import type { Endpoint } from '../support/local';
import { median, percentile, sum } from '../support/stats';
import type { Peer } from './peer';

/** A peer with its requests, DynamoDB Local's capacity units and AWS's billed units counted by middleware on its client. */
export interface Metered {
  readonly peer: Peer;
  readonly meter: Meter;
  readonly capacity: Capacity;
  readonly billed: Billed;
}

/**
 * Runs `work` with the peer's counting middleware passed over (each costs this process CPU on every request:
 * the bill sizes every item), so what is measured is the library's own CPU and the SDK's.
 */
export async function unmetered<T>(m: Metered, work: () => Promise<T>): Promise<T> {
  const counters = [m.meter, m.capacity, m.billed];
  for (const counter of counters) counter.paused = true;
  try {
    return await work();
  } finally {
    for (const counter of counters) counter.paused = false;
  }
}

export type PeerFactory = (endpoint: Endpoint, prefix: string) => Promise<Peer>;

export async function metered(factory: PeerFactory, endpoint: Endpoint, prefix: string): Promise<Metered> {
  const peer = await factory(endpoint, prefix);
  return { peer, billed: await billed(peer.client), meter: meter(peer.client), capacity: capacity(peer.client) };
}

/** What one timed piece of work cost. */
export interface Sample {
  readonly ms: number;
  readonly events: number;
  readonly requests: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  /** What AWS bills for the same requests (bench/cost). */
  readonly billedReadUnits: number;
  readonly billedWriteUnits: number;
  /** Per operation (an append, a load, a batch), in ms. */
  readonly latencies: number[];
  readonly conflicts: number;
  /** This process's CPU time (user + system) while the work ran, in ms: the library's and the SDK's, DynamoDB Local's excluded. */
  readonly cpuMs: number;
}

/** Runs `work` with the peer's counters reset; `work` records one latency per operation and resolves the conflicts it met. */
export async function sample(m: Metered, events: number, work: (latency: (ms: number) => void) => Promise<number>): Promise<Sample> {
  m.meter.reset();
  m.capacity.reset();
  m.billed.reset();
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  const conflicts = await work((ms) => latencies.push(ms));
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    events,
    requests: m.meter.total(),
    readUnits: m.capacity.readUnits,
    writeUnits: m.capacity.writeUnits,
    billedReadUnits: m.billed.readUnits,
    billedWriteUnits: m.billed.writeUnits,
    latencies,
    conflicts,
  };
}

/** Runs `operation` and resolves how long it took. */
export async function time(operation: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await operation();
  return performance.now() - start;
}

/** Samples of the same measure over alternating rounds, summed up: the median round's rate, pooled percentiles, totals per event. */
export interface Summed {
  readonly eventsPerSecond: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly requestsPerEvent: number;
  readonly readUnitsPerEvent: number;
  readonly writeUnitsPerEvent: number;
  readonly billedReadUnitsPerEvent: number;
  readonly billedWriteUnitsPerEvent: number;
  /** On-demand dollars per million events of the billed units (us-east-1). */
  readonly dollarsPerMillionEvents: number;
  readonly conflictsPerEvent: number;
  /** This process's CPU per event (per load, per operation where `events` counts operations), in µs. */
  readonly cpuUsPerEvent: number;
}

export function summed(samples: ReadonlyArray<Sample>): Summed {
  const events = sum(samples.map((s) => s.events));
  const latencies = samples.flatMap((s) => s.latencies);
  const billedReadUnitsPerEvent = sum(samples.map((s) => s.billedReadUnits)) / events;
  const billedWriteUnitsPerEvent = sum(samples.map((s) => s.billedWriteUnits)) / events;
  return {
    eventsPerSecond: median(samples.map((s) => s.events / (s.ms / 1000))),
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    requestsPerEvent: sum(samples.map((s) => s.requests)) / events,
    readUnitsPerEvent: sum(samples.map((s) => s.readUnits)) / events,
    writeUnitsPerEvent: sum(samples.map((s) => s.writeUnits)) / events,
    billedReadUnitsPerEvent,
    billedWriteUnitsPerEvent,
    dollarsPerMillionEvents: dollars(billedWriteUnitsPerEvent, billedReadUnitsPerEvent) * 1e6,
    conflictsPerEvent: sum(samples.map((s) => s.conflicts)) / events,
    cpuUsPerEvent: (sum(samples.map((s) => s.cpuMs)) * 1000) / events,
  };
}

/** One figure of a round's sample: its events/s, its p50, its CPU per event. */
export type RoundFigure = (s: Sample) => number;

export const RoundFigures = {
  eventsPerSecond: ((s) => s.events / (s.ms / 1000)) as RoundFigure,
  p50: ((s) => percentile(s.latencies, 50)) as RoundFigure,
  p99: ((s) => percentile(s.latencies, 99)) as RoundFigure,
  cpuUsPerEvent: ((s) => (s.cpuMs * 1000) / s.events) as RoundFigure,
} as const;

/** A ratio of two libraries' figure, from the rounds they ran side by side. */
export interface PairedRatio {
  /** The median of the rounds' ratios. */
  readonly ratio: number;
  /** The lowest and highest round's ratio. */
  readonly spread: readonly [number, number];
}

/**
 * `ours ÷ theirs` round by round (round r of one beside round r of the other: the rounds rotate the order, so
 * each pair ran within seconds of each other), and the median of those ratios: drift on a shared machine
 * over the run moves both figures of a pair, not their ratio. `undefined` when a round has no figure.
 */
export function pairedRatio(ours: ReadonlyArray<Sample>, theirs: ReadonlyArray<Sample>, figure: RoundFigure): PairedRatio | undefined {
  const ratios: number[] = [];
  for (let round = 0; round < Math.min(ours.length, theirs.length); round++) {
    const a = figure(ours[round] as Sample);
    const b = figure(theirs[round] as Sample);
    if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return undefined;
    ratios.push(a / b);
  }
  if (ratios.length === 0) return undefined;
  const sorted = [...ratios].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  const ratio = ((sorted[Math.floor(middle)] as number) + (sorted[Math.ceil(middle)] as number)) / 2;
  return { ratio, spread: [sorted[0] as number, sorted[sorted.length - 1] as number] };
}

/** The peers in the order of round `round`: rotated each round, so each takes each place as often (ABAB for two). */
export function rotation<T>(items: ReadonlyArray<T>, round: number): T[] {
  const k = round % Math.max(1, items.length);
  return [...items.slice(k), ...items.slice(0, k)];
}

/** Runs `measure` for every peer, `rounds` times in rotating order; resolves each peer's samples. */
export async function alternate(
  peers: ReadonlyArray<Metered>,
  rounds: number,
  measure: (m: Metered, round: number) => Promise<Sample>,
): Promise<Map<string, Sample[]>> {
  const out = new Map<string, Sample[]>(peers.map((m) => [m.peer.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const m of rotation(peers, round)) out.get(m.peer.name)?.push(await measure(m, round));
  }
  return out;
}

import { RoundFigures, pairedRatio, rotation, summed, type Sample } from '../../bench/peers/measure';
import { TWIN, lineRows, withGoal } from '../../bench/peers/rows';

const sample = (ms: number, events: number, latencies: number[], extra: Partial<Sample> = {}): Sample => ({
  ms,
  events,
  requests: events,
  readUnits: 0,
  writeUnits: events * 2,
  billedReadUnits: 0,
  billedWriteUnits: events * 4,
  latencies,
  conflicts: 0,
  cpuMs: events,
  ...extra,
});

describe('the peers benchmark measures', () => {
  test('rotation puts every peer in every place once over as many rounds as peers', () => {
    const rounds = [0, 1, 2].map((round) => rotation(['a', 'b', 'c'], round));
    expect(rounds).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c', 'a'],
      ['c', 'a', 'b'],
    ]);
    expect(rotation(['a', 'b'], 3)).toEqual(['b', 'a']);
  });

  test('summed takes the median round rate, pools latencies and divides totals by all events', () => {
    const s = summed([sample(1000, 10, [1, 2]), sample(2000, 10, [3]), sample(500, 10, [4], { conflicts: 6 })]);
    expect(s.eventsPerSecond).toBe(10); // rounds at 10, 5 and 20 events/s
    expect(s.p50).toBe(2);
    expect(s.p99).toBe(4);
    expect(s.requestsPerEvent).toBe(1);
    expect(s.writeUnitsPerEvent).toBe(2);
    expect(s.billedWriteUnitsPerEvent).toBe(4);
    expect(s.dollarsPerMillionEvents).toBe(4 * 0.625);
    expect(s.conflictsPerEvent).toBe(0.2);
  });

  test('summed divides the CPU of every round by all events', () => {
    const s = summed([sample(1000, 10, [1], { cpuMs: 5 }), sample(1000, 30, [1], { cpuMs: 3 })]);
    expect(s.cpuUsPerEvent).toBe(200);
  });

  test('a paired ratio is the median of the rounds ratios, with their lowest and highest', () => {
    // Round 2 ran while the machine was busy: both figures drop, their ratio does not.
    const ours = [sample(1000, 20, [1]), sample(4000, 20, [1]), sample(1000, 30, [1]), sample(1000, 10, [1])];
    const theirs = [sample(1000, 10, [1]), sample(4000, 10, [1]), sample(1000, 10, [1]), sample(1000, 10, [1])];
    const paired = pairedRatio(ours, theirs, RoundFigures.eventsPerSecond);
    expect(paired?.ratio).toBe(2); // rounds at 2, 2, 3 and 1: the middle two's mean
    expect(paired?.spread).toEqual([1, 3]);
    expect(pairedRatio(ours, [sample(1000, 0, [])], RoundFigures.p50)).toBeUndefined();
  });

  test('dynafold against itself (A/A) is shown for the figures of a round, never with a target', () => {
    const rounds = new Map([
      ['dynafold', [sample(1000, 100, [5]), sample(1000, 100, [5])]],
      ['Castore', [sample(1000, 90, [6]), sample(1000, 110, [6])]],
      [TWIN, [sample(1000, 80, [5]), sample(1000, 125, [5])]],
    ]);
    const rows = lineRows('command', rounds, [
      { measure: 'events/s ↑', pick: (s) => s.eventsPerSecond, round: RoundFigures.eventsPerSecond, bare: true },
      { measure: 'requests/event ↓', pick: (s) => s.requestsPerEvent },
    ]).map(withGoal);
    const twin = rows.filter((row) => row.against === TWIN);
    expect(twin).toHaveLength(1);
    expect(twin[0]).toMatchObject({ measure: 'command: events/s ↑', ratio: (1.25 + 0.8) / 2, spread: [0.8, 1.25] });
    expect(twin[0]?.target).toBeUndefined();
    expect(rows.find((row) => row.against === 'Castore' && row.measure === 'command: events/s ↑')?.target).toBe('≥ 1.00×');
  });
});

import type { Row } from '../support/report';
import { pairedRatio, summed, type RoundFigure, type Sample, type Summed } from './measure';

export const SCENARIO = '9 peers';
/** The hand-written baseline: dynafold's requests, nothing else (see `barePeer`). */
export const BARE = 'bare SDK';
/**
 * dynafold again, on tables of its own, in the same rounds: dynafold ÷ itself is the bench's resolution on
 * a line (the same code measured twice), shown beside the peers' ratios with no target.
 */
export const TWIN = 'dynafold (A/A)';

/** Each library's samples of one line, round by round (round r of each ran side by side). */
export type Rounds = ReadonlyMap<string, ReadonlyArray<Sample>>;

/**
 * A figure of a line: its value from the summed samples, and, for a figure a round has (events/s, latency,
 * CPU), the round's, so the ratio is the median of the rounds' ratios and the row shows their spread. Lines
 * of counts (requests, units, dollars) are the same in every round and compare totals. `bare`: whether the
 * hand-written baseline is shown beside the peers (its requests are dynafold's, so counts would only repeat).
 */
export interface Figure {
  readonly measure: string;
  readonly pick: (s: Summed) => number;
  readonly round?: RoundFigure | undefined;
  readonly bare?: boolean | undefined;
}

/** Rows of `figures` of a line: dynafold beside every other library that ran it. */
export function lineRows(label: string, rounds: Rounds, figures: ReadonlyArray<Figure>): Row[] {
  const ours = rounds.get('dynafold');
  if (ours === undefined) return [];
  const oursSummed = summed(ours);
  const rows: Row[] = [];
  for (const figure of figures) {
    for (const [name, theirs] of rounds) {
      if (name === 'dynafold' || ((name === BARE || name === TWIN) && figure.bare !== true)) continue;
      const dynafold = figure.pick(oursSummed);
      const baseline = figure.pick(summed(theirs));
      const paired = figure.round === undefined ? undefined : pairedRatio(ours, theirs, figure.round);
      rows.push({
        scenario: SCENARIO,
        measure: `${label}: ${figure.measure}`,
        dynafold,
        baseline,
        against: name,
        ...(paired !== undefined ? { ratio: paired.ratio, spread: paired.spread } : baseline !== 0 ? { ratio: dynafold / baseline } : {}),
      });
    }
  }
  return rows;
}

/** A figure of dynafold beside the same figure of each peer, with the ratio dynafold ÷ peer. */
export function compare(measure: string, ours: number, theirs: ReadonlyMap<string, number | string>, ratio = true): Row[] {
  return [...theirs].map(([peer, value]) => ({
    scenario: SCENARIO,
    measure,
    dynafold: ours,
    baseline: value,
    against: peer,
    ...(ratio && typeof value === 'number' && value !== 0 ? { ratio: ours / value } : {}),
  }));
}

const PEERS = new Set(['equinox-js', 'Castore']);

/**
 * The goals dynafold is held to: on every line AWS bills no more than each peer's (the projection against
 * Castore only: equinox-js's ends at its index); appends, commands and the hot stream at least as many events
 * a second as each peer; loads from a snapshot at a p50 no higher than equinox-js's; and the CPU of each
 * operation within 1.3× of the same requests sent by hand. Other figures are shown without a target.
 */
export function withGoal(row: Row): Row {
  if (typeof row.baseline !== 'number' || typeof row.dynafold !== 'number') return row;
  const ratio = row.ratio ?? row.dynafold / row.baseline;
  if (row.measure.includes('$ per million') && PEERS.has(row.against ?? '')) {
    return { ...row, target: '≤ 1.00×', pass: row.dynafold <= row.baseline * (1 + 1e-9) };
  }
  if (row.measure.endsWith('events/s ↑') && !row.measure.startsWith('projection') && PEERS.has(row.against ?? '')) {
    return { ...row, target: '≥ 1.00×', pass: ratio >= 1 };
  }
  if (row.measure.includes('from a snapshot: p50') && row.against === 'equinox-js') {
    return { ...row, target: '≤ 1.00×', pass: ratio <= 1 };
  }
  if (row.measure.startsWith('CPU') && row.against === BARE) {
    return { ...row, target: '≤ 1.30×', pass: ratio <= 1.3 };
  }
  return row;
}

/** The seeded PRNG and helpers the tests use, so a chaos schedule is reproduced from its printed seed. */
export { seededRandom, shuffle, randomInt } from '../__tests__/support/random';

/** A seed for run `index` of a run seeded `base`: distinct, stable, and printable. */
export function scheduleSeed(base: number, index: number): number {
  return (base * 1_000_003 + index * 7_919) >>> 0;
}

/** A seeded pseudo-random generator (mulberry32), so that a run can be replayed from its printed seed. */
export interface Random {
  readonly seed: number;
  /** A number in [0, 1). */
  next(): number;
  /** An integer from `min` to `max`, both included. */
  int(min: number, max: number): number;
  /** A copy of `items` in random order (Fisher–Yates). */
  shuffle<T>(items: ReadonlyArray<T>): T[];
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) =>
    min + Math.floor(next() * (max - min + 1));
  return {
    seed,
    next,
    int,
    shuffle<T>(items: ReadonlyArray<T>): T[] {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(0, i);
        [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
      }
      return copy;
    },
  };
}

/** The seed from `SEED` in the environment, or a fresh one. */
export function seedFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): number {
  const given = Number(env['SEED']);
  return Number.isInteger(given) && given >= 0
    ? given
    : Math.floor(Math.random() * 1_000_000);
}

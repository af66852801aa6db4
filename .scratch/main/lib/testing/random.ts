/** A small seeded PRNG (mulberry32): a delivery is replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A shuffled copy (Fisher–Yates). */
export function shuffle<T>(items: ReadonlyArray<T>, random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/** An integer from `min` to `max`, both included. */
export function randomInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** A seed for a run that was given none: from `DYNAFOLD_SPEC_SEED` when set, else random. */
export function freshSeed(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const configured = Number(env['DYNAFOLD_SPEC_SEED']);
  return env['DYNAFOLD_SPEC_SEED'] !== undefined && Number.isSafeInteger(configured) ? configured : Math.floor(Math.random() * 2 ** 31);
}

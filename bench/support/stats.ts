// The same seeded PRNG and shuffle as the tests, so a printed seed means the same thing everywhere.
export { seededRandom, shuffle } from '../../__tests__/support/random';

export function chunks<T>(items: ReadonlyArray<T>, size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The p-th percentile (0..100), nearest rank. */
export function percentile(values: ReadonlyArray<number>, p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export const median = (values: ReadonlyArray<number>) => percentile(values, 50);
export const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0);

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Nanoseconds per call of each candidate (pure CPU): the median of `rounds` timed loops of `count` calls,
 * after a warm-up loop of each, the candidates taking turns in every round so that none is favoured by
 * when the JIT got to it.
 */
export function nsPerCall(candidates: ReadonlyArray<() => unknown>, count: number, rounds: number): number[] {
  for (const call of candidates) for (let i = 0; i < count; i++) call();
  const samples = candidates.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    candidates.forEach((call, index) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < count; i++) call();
      samples[index]?.push(Number(process.hrtime.bigint() - start) / count);
    });
  }
  return samples.map(median);
}

/** Runs `run` and resolves its result with the milliseconds it took. */
export async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = performance.now();
  const result = await run();
  return { result, ms: performance.now() - start };
}

/** Runs `work(i)` for i in 0..count-1 on `concurrency` workers. */
export async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      for (let i = next++; i < count; i = next++) await work(i);
    }),
  );
}

import { AssertionError } from 'node:assert';
import { isDeepStrictEqual } from 'node:util';

/**
 * A spec that did not hold. An `AssertionError` (node:assert), so jest and vitest report it as a failed
 * assertion; where values were compared it carries `actual` and `expected`, of which the runner prints
 * its diff. The message says which spec failed, and for a projection spec the delivery and the seed
 * that replay it. Its stack starts where the test called the spec (`thenRows`, `thenEvents`,
 * `thenThrows`), not in the kit.
 */
export class SpecAssertionError extends AssertionError {
  /** The seed of the delivery that failed, for a projection spec. */
  readonly seed: number | undefined;

  constructor(message: string, details: { actual?: unknown; expected?: unknown; seed?: number | undefined } = {}) {
    const compared = 'actual' in details && 'expected' in details;
    // Made as a `fail`, whose message node leaves as it is: with `deepStrictEqual` node would append its own
    // diff, and the runner, which prints one of `actual` and `expected`, would show the values twice.
    super({ message, actual: details.actual, expected: details.expected, operator: 'fail' });
    // What the runners read to print their diff of `actual` and `expected`.
    if (compared) this.operator = 'deepStrictEqual';
    this.name = 'SpecAssertionError';
    this.seed = details.seed;
  }
}

/** Throws a {@link SpecAssertionError} headed by `header` and `what` when `actual` and `expected` differ. */
export function assertEqual(what: string, actual: unknown, expected: unknown, context: { header: string; seed?: number | undefined }): void {
  if (isDeepStrictEqual(actual, expected)) return;
  throw new SpecAssertionError(`${context.header}\n${what}:`, { actual, expected, ...(context.seed === undefined ? {} : { seed: context.seed }) });
}

/** The frames of the test that called a spec, captured when it called (see {@link reportedAt}). */
export interface CallSite {
  readonly frames: string;
}

/** The call site of `spec` (a `then…` method): the frames below it, the test's first. */
export function callSite(spec: (...args: never[]) => unknown): CallSite {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, spec);
  // The first line names the holder ("Error"); the frames follow.
  return { frames: (holder.stack ?? '').split('\n').slice(1).join('\n') };
}

/**
 * Runs a spec, and points the stack of its failure at `site`: the spec fails after awaits, deep in the
 * kit, whose files an app's runner would show (or, mapped to sources the package does not ship, fail to).
 */
export async function reportedAt<T>(site: CallSite, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SpecAssertionError && site.frames !== '') error.stack = `${error.name}: ${error.message}\n${site.frames}`;
    throw error;
  }
}

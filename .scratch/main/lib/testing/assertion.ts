import { AssertionError } from 'node:assert';
import { isDeepStrictEqual } from 'node:util';

/**
 * A spec that did not hold. An `AssertionError` (node:assert), so jest and vitest report it as a failed
 * assertion; where values were compared it carries `actual` and `expected` and its message ends with
 * node's diff. The message says which spec failed, and for a projection spec the delivery and the seed
 * that replay it.
 */
export class SpecAssertionError extends AssertionError {
  /** The seed of the delivery that failed, for a projection spec. */
  readonly seed: number | undefined;

  constructor(message: string, details: { actual?: unknown; expected?: unknown; seed?: number | undefined } = {}) {
    const compared = 'actual' in details && 'expected' in details;
    // With `deepStrictEqual`, node appends a diff of the two values to the message.
    super({ message, actual: details.actual, expected: details.expected, operator: compared ? 'deepStrictEqual' : 'fail' });
    this.name = 'SpecAssertionError';
    this.seed = details.seed;
  }
}

/** Throws a {@link SpecAssertionError} headed by `header` and `what` when `actual` and `expected` differ. */
export function assertEqual(what: string, actual: unknown, expected: unknown, context: { header: string; seed?: number | undefined }): void {
  if (isDeepStrictEqual(actual, expected)) return;
  throw new SpecAssertionError(`${context.header}\n${what}:`, { actual, expected, ...(context.seed === undefined ? {} : { seed: context.seed }) });
}

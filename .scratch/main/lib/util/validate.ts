import { ConfigurationError } from '../errors';
import type { Backoff } from './backoff';
import { isWellFormed } from './well-formed';

/*
 * The one set of option validators: each names the option (and, in `where`, whose option it is, e.g.
 * `Projection OrderSummary`), says what was expected and what came, and throws `ConfigurationError`.
 */

function fail(option: string, expected: string, value: unknown, where: string | undefined): never {
  const said = `xpected \`${option}\` to be ${expected}, got ${describe(value)}.`;
  throw new ConfigurationError(where === undefined || where === '' ? `E${said}` : `${where}: e${said}`);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  return String(value);
}

/** A non-empty, well-formed string (no lone surrogate: DynamoDB would store it as U+FFFD). */
export function requireText(option: string, value: unknown, where?: string): string {
  if (typeof value !== 'string' || value.length === 0 || !isWellFormed(value)) fail(option, 'a non-empty, well-formed string', value, where);
  return value;
}

/** A DynamoDB table name: 3 to 255 letters, digits, `_`, `-` and `.`. */
export function requireTableName(option: string, value: unknown, where?: string): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_.-]{3,255}$/.test(value))
    fail(option, 'a DynamoDB table name (3 to 255 of A-Z a-z 0-9 _ - .)', value, where);
  return value;
}

/** An integer within bounds. */
export function requireInteger(option: string, value: unknown, min: number, max?: number, where?: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
    fail(option, max === undefined ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`, value, where);
  }
  return value;
}

/** A finite number of at least `min` (milliseconds unless `unit` says otherwise). */
export function requireNumber(
  option: string,
  value: unknown,
  min: number,
  bound: { minLabel?: string | undefined; unit?: string | undefined; where?: string | undefined } = {},
): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    fail(option, `${bound.unit ?? 'a number of milliseconds'} of at least ${bound.minLabel ?? min}`, value, bound.where);
  }
  return value;
}

/** A function. */
export function requireFunction<F>(option: string, value: F, where?: string): F {
  if (typeof value !== 'function') fail(option, 'a function', value, where);
  return value;
}

/** A backoff: `initialMs` ≥ 1, `maxMs` ≥ `initialMs`, `factor` ≥ 1. */
export function requireBackoff(option: string, backoff: Backoff, where?: string): Backoff {
  requireNumber(`${option}.initialMs`, backoff.initialMs, 1, { ...(where === undefined ? {} : { where }) });
  requireNumber(`${option}.maxMs`, backoff.maxMs, backoff.initialMs, {
    minLabel: `\`${option}.initialMs\``,
    ...(where === undefined ? {} : { where }),
  });
  if (backoff.factor !== undefined)
    requireNumber(`${option}.factor`, backoff.factor, 1, { unit: 'a number', ...(where === undefined ? {} : { where }) });
  if (backoff.jitter !== undefined && backoff.jitter !== 'equal' && backoff.jitter !== 'full')
    fail(`${option}.jitter`, "'equal' or 'full'", backoff.jitter, where);
  return backoff;
}

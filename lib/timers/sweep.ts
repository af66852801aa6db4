import { ConfigurationError, isTransient } from '../errors';
import { Semaphore, log, requireInteger, resolveLogger, sleep, type Logger } from '../util';
import { TimerDefaults } from './defaults';
import type { DynamoTimers } from './dynamo-timers';
import { fireTimer, type TimerOwner } from './fire-timer';
import type { DueTimer } from './timer-layout';

/** Options of {@link sweepTimers}. */
export interface SweepOptions {
  readonly timers: DynamoTimers;
  /** The reactions and workflows whose timers to fire, by their names: a due timer of another owner is left alone. */
  readonly owners: ReadonlyArray<TimerOwner>;
  /** Due timers fired at once. @defaultValue 8 ({@link TimerDefaults}) */
  readonly concurrency?: number | undefined;
  /** Receives timers whose firing failed (warn); `false` logs nothing. @defaultValue one JSON line per entry on the console */
  readonly logger?: Logger | false | undefined;
  /** Stops the sweep: no further timer starts, and the requests in flight are cut short. */
  readonly signal?: AbortSignal | undefined;
}

/** What a sweep did. */
export interface SweepResult {
  /** Timers this sweep fired. */
  readonly fired: number;
  /** Due timers found fired, cancelled or scheduled again by the time their firing went (by another sweep, say). */
  readonly gone: number;
  /** Due timers of owners this sweep was not given. */
  readonly unowned: number;
  /** Due timers whose firing failed or lost every race: they stay due, for the next sweep. */
  readonly failed: ReadonlyArray<{ readonly timer: DueTimer; readonly error: unknown }>;
}

/**
 * Fires every timer due by the clock, of the given owners: each in a transaction with its owner's effects,
 * recorded once however many sweeps run at once (see `fireTimer`). A firing that fails leaves its timer due
 * for the next sweep, and the sweep goes on with the others. Rejects only when listing the due timers fails.
 *
 * @example
 * ```ts
 * const { fired } = await sweepTimers({ timers, owners: [checkout] })
 * ```
 */
export async function sweepTimers(options: SweepOptions): Promise<SweepResult> {
  const owners = ownersByName(options.owners, 'sweepTimers');
  const limit = new Semaphore(requireInteger('concurrency', options.concurrency ?? TimerDefaults.concurrency, 1, undefined, 'sweepTimers'));
  const logger = resolveLogger(options.logger);
  const { timers, signal } = options;
  let fired = 0;
  let gone = 0;
  let unowned = 0;
  const failed: Array<{ timer: DueTimer; error: unknown }> = [];
  const running: Array<Promise<void>> = [];
  const fire = async (timer: DueTimer, owner: TimerOwner) => {
    try {
      const outcome = await fireTimer(timers, owner, timer, { signal });
      if (outcome === 'fired') fired++;
      else if (outcome === 'gone') gone++;
      else if (outcome === 'contended') failed.push({ timer, error: new Error(`The firing of timer ${timer.name} lost every race for its writes.`) });
    } catch (error) {
      if (signal?.aborted === true) return;
      failed.push({ timer, error });
      const level = isTransient(error) ? 'warn' : 'error';
      log(logger, level, { owner: timer.owner, scope: timer.scope, timer: timer.name, error }, 'A timer failed to fire; it stays due.');
    }
  };
  for await (const timer of timers.due({ signal })) {
    const owner = owners.get(timer.owner);
    if (owner === undefined) {
      unowned++;
      continue;
    }
    running.push(limit.use(() => fire(timer, owner), signal).catch(() => undefined));
  }
  await Promise.all(running);
  signal?.throwIfAborted();
  return { fired, gone, unowned, failed };
}

/** Options of {@link runTimerSweeps}. */
export interface TimerSweepsOptions extends SweepOptions {
  /** The time between the end of a sweep and the next. @defaultValue 1000 ({@link TimerDefaults}) */
  readonly intervalMs?: number | undefined;
  /** Called with each sweep's result; a throw is ignored. */
  readonly onSweep?: ((result: SweepResult) => void) | undefined;
  /** Required: the sweeps run until it aborts. */
  readonly signal: AbortSignal;
}

/**
 * Sweeps the due timers again and again (see {@link sweepTimers}), `intervalMs` apart, until `signal`
 * aborts; resolves then. A sweep that fails (its listing of due timers) is logged and the next one goes on.
 * Run it beside `runChangeFeed` in the feed's process, with the same signal.
 *
 * @example
 * ```ts
 * const stop = new AbortController()
 * await Promise.all([runChangeFeed(feedOptions, stop.signal), runTimerSweeps({ timers, owners: [checkout], signal: stop.signal })])
 * ```
 */
export async function runTimerSweeps(options: TimerSweepsOptions): Promise<void> {
  const intervalMs = requireInteger('intervalMs', options.intervalMs ?? TimerDefaults.sweepIntervalMs, 0, undefined, 'runTimerSweeps');
  ownersByName(options.owners, 'runTimerSweeps');
  const { signal } = options;
  if (!(signal instanceof AbortSignal)) throw new ConfigurationError('runTimerSweeps: expected `signal`, an AbortSignal that stops the sweeps.');
  const logger = resolveLogger(options.logger);
  while (!signal.aborted) {
    try {
      const result = await sweepTimers(options);
      try {
        options.onSweep?.(result);
      } catch {
        // A caller's report must not stop the sweeps.
      }
    } catch (error) {
      if (signal.aborted) break;
      log(logger, 'warn', { error }, 'A timer sweep failed; the next one goes on.');
    }
    await sleep(intervalMs, signal).catch(() => undefined);
  }
}

/**
 * A handler for a scheduled Lambda function (an EventBridge rule, `rate(1 minute)`) that sweeps the due
 * timers once per invocation and resolves what it did (see {@link sweepTimers}).
 *
 * @example
 * ```ts
 * export const handler = timerSweepHandler({ timers, owners: [checkout] })
 * ```
 */
export function timerSweepHandler(options: Omit<SweepOptions, 'signal'>): (event?: unknown) => Promise<SweepResult> {
  ownersByName(options.owners, 'timerSweepHandler');
  return () => sweepTimers(options);
}

/** The owners by name; two of one name are a `ConfigurationError`. */
function ownersByName(owners: ReadonlyArray<TimerOwner>, where: string): Map<string, TimerOwner> {
  if (!Array.isArray(owners)) throw new ConfigurationError(`${where}: expected \`owners\` to list the reactions and workflows whose timers to fire.`);
  const byName = new Map<string, TimerOwner>();
  for (const owner of owners) {
    if (typeof owner?.planFiring !== 'function')
      throw new ConfigurationError(`${where}: expected \`owners\` to hold reactions and workflows, got ${String(owner)}.`);
    if (byName.has(owner.name)) throw new ConfigurationError(`${where}: two owners are named ${owner.name}; names must be unique.`);
    byName.set(owner.name, owner);
  }
  return byName;
}

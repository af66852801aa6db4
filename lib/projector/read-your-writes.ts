import { getItem, withSignal } from '../dynamo';
import { ReadYourWritesTimeoutError, ValidationError } from '../errors';
import { instanceKey, type ProjectedRow, type StreamEvent, type WaitTiming } from '../store';
import { RowAttributes } from '../read-model';
import { backoffDelay, requireBackoff, sleep, type Backoff } from '../util';
import { ProjectionDefaults } from './defaults';
import { rowFromItem, rowIdOf, type RowBasics, type Key } from './engine';

/** Options of `waitFor`: how long to wait, what to do then, and how often to read. */
export interface WaitForOptions extends WaitTiming {
  /** The wait between reads of the row. @defaultValue 10 ms growing ×2 to 100 ms, jittered (`ProjectionDefaults.readYourWrites.backoff`) */
  readonly backoff?: Backoff | undefined;
}

/** The row a wait reads and the version it must reflect. */
export interface WaitTarget {
  readonly key: Key;
  /** The source instance (`<stream>#<id>`); `undefined` for a single-source row, which keeps one checkpoint. */
  readonly instance: string | undefined;
  readonly version: number;
}

/** One strongly consistent read of a row: what the caller gets, and the version of `instance` it reflects. */
async function readProjected<Row>(runtime: RowBasics, target: WaitTarget, signal: AbortSignal | undefined): Promise<ProjectedRow<Row>> {
  const { readModel } = runtime.store;
  const item = await getItem(withSignal(runtime.store.documents, signal), readModel.table, readModel.keyOf(target.key));
  const read = rowFromItem<unknown>(runtime.store, item);
  // A single-source row keeps one checkpoint: whichever instance it records (or none, for older rows).
  const version =
    target.instance === undefined
      ? ([...read.checkpoints.values()][0] ?? read.unattributed)
      : (read.checkpoints.get(target.instance) ?? read.unattributed);
  const visible = item !== undefined && item[RowAttributes.stub] !== true && item[RowAttributes.deleted] !== true;
  return {
    key: target.key,
    row: visible ? (readModel.fromItem(item) as Row) : undefined,
    fresh: version !== undefined && version >= target.version,
    version,
  };
}

/**
 * Reads a row strongly consistent until it reflects `target.version` of its source instance, waiting a
 * growing backoff between reads. Out of time, throws `ReadYourWritesTimeoutError` or (`onTimeout:
 * 'stale'`) resolves the row as last read, `fresh: false`.
 */
export async function waitForRow<Row>(runtime: RowBasics, target: WaitTarget, options: WaitForOptions = {}): Promise<ProjectedRow<Row>> {
  const { timeoutMs, onTimeout, backoff } = resolveWait(options);
  if (!Number.isSafeInteger(target.version) || target.version < 1) {
    throw new ValidationError(`Expected \`version\` to be a stream version (an integer ≥ 1), got ${String(target.version)}.`, [
      { path: ['version'], message: 'not an integer ≥ 1' },
    ]);
  }
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const seen = await readProjected<Row>(runtime, target, options.signal);
    if (seen.fresh) return seen;
    const left = started + timeoutMs - Date.now();
    if (left <= 0) {
      if (onTimeout === 'stale') return seen;
      throw new ReadYourWritesTimeoutError(runtime.name, target.key, target.instance, target.version, seen.version, Date.now() - started);
    }
    await sleep(Math.min(backoffDelay(attempt, backoff), left), options.signal);
  }
}

/**
 * Waits for every row `events` address (through the projection's `key`) to reflect the last of them
 * that addresses it, all rows at once. Events of other streams, and events that address no row, are
 * not waited for.
 */
export async function waitForEvents<Row>(
  runtime: RowBasics,
  events: ReadonlyArray<StreamEvent>,
  options: WaitForOptions = {},
): Promise<Array<ProjectedRow<Row>>> {
  resolveWait(options);
  const targets = new Map<string, WaitTarget>();
  for (const event of events) {
    if (!runtime.streams.has(event.streamName)) continue;
    const key = runtime.keyOf(event);
    if (key === undefined) continue;
    const instance = instanceKey(event);
    const id = `${rowIdOf(runtime, key)}\n${instance}`;
    const known = targets.get(id);
    if (known === undefined || known.version < event.version) targets.set(id, { key, instance, version: event.version });
  }
  return Promise.all([...targets.values()].map((target) => waitForRow<Row>(runtime, target, options)));
}

/** The wait's options with their defaults; a bad one is the caller's `ValidationError`. */
function resolveWait(options: WaitForOptions): { timeoutMs: number; onTimeout: 'throw' | 'stale'; backoff: Backoff } {
  const defaults = ProjectionDefaults.readYourWrites;
  const timeoutMs = options.timeoutMs ?? defaults.timeoutMs;
  const onTimeout = options.onTimeout ?? defaults.onTimeout;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0) {
    throw new ValidationError(`Expected \`timeoutMs\` to be an integer ≥ 0, got ${String(timeoutMs)}.`, [
      { path: ['timeoutMs'], message: 'not an integer ≥ 0' },
    ]);
  }
  if (onTimeout !== 'throw' && onTimeout !== 'stale') {
    throw new ValidationError(`Expected \`onTimeout\` to be 'throw' or 'stale', got ${JSON.stringify(onTimeout)}.`, [
      { path: ['onTimeout'], message: "not 'throw' or 'stale'" },
    ]);
  }
  return { timeoutMs, onTimeout, backoff: options.backoff === undefined ? defaults.backoff : requireBackoff('backoff', options.backoff, 'waitFor') };
}

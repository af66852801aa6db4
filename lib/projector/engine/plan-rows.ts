import { type StreamEvent, instanceKey } from '../../store';
import type { Logger } from '../../util';

/** An input event and where it stood in the call's input. */
export interface Entry<Event> {
  readonly event: Event;
  readonly position: number;
}

/** The events of one call that fold into one row. */
export interface RowGroup<Event, Key> {
  readonly rowId: string;
  readonly key: Key;
  readonly streamId: string;
  /** Deduplicated, in version order. */
  readonly events: Event[];
  readonly positions: number[];
}

/** Versions of each stream instance (by {@link instanceKey}) the call holds, whatever row they address: they fill gaps for free. */
export type InHand<Event> = Map<string, Map<number, Event>>;

/** What a call's rows add up to, for metrics. */
export interface ApplyStats {
  /** Row writes (conditional Puts or transactions) that went through. */
  rowsWritten: number;
  /** Strongly consistent reads of a stream to fill a gap. */
  gapReads: number;
  /** Row writes that lost to a concurrent writer (and were tried again). */
  lostRaces: number;
}

/** What the rows of one call share: the events in hand, the counts, the caller's signal and logger. */
export interface CallContext<Event> {
  readonly inHand: InHand<Event>;
  readonly stats: ApplyStats;
  /** Once aborted, no row starts and every request in flight is cut short. */
  readonly signal?: AbortSignal | undefined;
  /** The caller's logger (`processBatch`, `lambdaHandler`, `runChangeFeed`): told what happens to failing rows, besides the projection's own. */
  readonly logger?: Logger | undefined;
}

/** A fresh context for a call. */
export function callContext<Event>(inHand: InHand<Event> = new Map(), signal?: AbortSignal, logger?: Logger): CallContext<Event> {
  return { inHand, stats: { rowsWritten: 0, gapReads: 0, lostRaces: 0 }, signal, logger };
}

export interface Plan<Event, Key> {
  readonly rows: Map<string, RowGroup<Event, Key>>;
  readonly ignored: number[];
  readonly inHand: InHand<Event>;
  /** Events whose `key` threw: each fails on its own. */
  readonly keyFailures: Array<{ entry: Entry<Event>; error: unknown }>;
}

/**
 * Groups a call's events by row: sorted and deduplicated by version, so an out-of-order or redelivered
 * batch needs no read to put right. `rowIdOf` turns a key into a stable identity (its stored key).
 */
export function planRows<Event extends StreamEvent, Key>(
  entries: ReadonlyArray<Entry<Event>>,
  keyOf: (event: Event) => Key | undefined,
  rowIdOf: (key: Key) => string,
): Plan<Event, Key> {
  const rows = new Map<string, RowGroup<Event, Key>>();
  const ignored: number[] = [];
  const inHand: InHand<Event> = new Map();
  const keyFailures: Array<{ entry: Entry<Event>; error: unknown }> = [];
  for (const entry of entries) {
    const { event } = entry;
    const instance = instanceKey(event);
    let versions = inHand.get(instance);
    if (versions === undefined) inHand.set(instance, (versions = new Map()));
    versions.set(event.version, event);
    let key: Key | undefined;
    let rowId: string;
    try {
      key = keyOf(event);
      if (key === undefined) {
        ignored.push(entry.position);
        continue;
      }
      rowId = rowIdOf(key);
    } catch (error) {
      keyFailures.push({ entry, error });
      continue;
    }
    let row = rows.get(rowId);
    if (row === undefined) rows.set(rowId, (row = { rowId, key, streamId: event.streamId, events: [], positions: [] }));
    row.positions.push(entry.position);
    if (!row.events.some((known) => known.version === event.version && instanceKey(known) === instance)) row.events.push(event);
  }
  for (const row of rows.values()) row.events.sort((a, b) => a.version - b.version);
  return { rows, ignored, inHand, keyFailures };
}

/** Whether every version from `from` to `to` is in hand. */
export function holdsRange<Event>(versions: ReadonlyMap<number, Event> | undefined, from: number, to: number): boolean {
  for (let version = from; version <= to; version++) if (versions?.has(version) !== true) return false;
  return true;
}

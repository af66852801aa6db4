import type { Entry } from '../../outcome';
import { type StreamEvent, instanceKey } from '../../store';

/** A row's key: its key fields, as a projection's `key` returned them. */
export type Key = Readonly<Record<string, unknown>>;

/** The events of one call that fold into one row. */
export interface RowGroup<Event, RowKey> {
  readonly rowId: string;
  readonly key: RowKey;
  readonly streamId: string;
  /** Deduplicated, in version order. */
  readonly events: Event[];
  readonly positions: number[];
}

/** Versions of each stream instance (by {@link instanceKey}) the call holds, whatever row they address: they fill gaps for free. */
export type InHand<Event> = Map<string, Map<number, Event>>;

/** A call's events planned per row. */
export interface RowPlan<Event, RowKey> {
  readonly rows: Map<string, RowGroup<Event, RowKey>>;
  /** Entries whose event addresses no row (`keyOf` answered `undefined`). */
  readonly ignored: Array<Entry<Event>>;
  readonly inHand: InHand<Event>;
  /** Events whose `key` threw: each fails on its own. */
  readonly keyFailures: Array<{ entry: Entry<Event>; error: unknown }>;
}

/**
 * Groups a call's events by row: sorted and deduplicated by version, so an out-of-order or redelivered
 * batch needs no read to put right. `rowIdOf` turns a key into a stable identity (its stored key).
 */
export function planRows<Event extends StreamEvent, RowKey>(
  entries: ReadonlyArray<Entry<Event>>,
  keyOf: (event: Event) => RowKey | undefined,
  rowIdOf: (key: RowKey) => string,
): RowPlan<Event, RowKey> {
  const rows = new Map<string, RowGroup<Event, RowKey>>();
  const ignored: Array<Entry<Event>> = [];
  const inHand: InHand<Event> = new Map();
  const keyFailures: Array<{ entry: Entry<Event>; error: unknown }> = [];
  // The versions each row holds already, by stream instance: a redelivered event is folded once.
  const held = new Map<RowGroup<Event, RowKey>, Map<string, Set<number>>>();
  for (const entry of entries) {
    const { event } = entry;
    const instance = instanceKey(event);
    let versions = inHand.get(instance);
    if (versions === undefined) inHand.set(instance, (versions = new Map()));
    versions.set(event.version, event);
    let key: RowKey | undefined;
    let rowId: string;
    try {
      key = keyOf(event);
      if (key === undefined) {
        ignored.push(entry);
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
    let byInstance = held.get(row);
    if (byInstance === undefined) held.set(row, (byInstance = new Map()));
    let rowVersions = byInstance.get(instance);
    if (rowVersions === undefined) byInstance.set(instance, (rowVersions = new Set()));
    if (rowVersions.has(event.version)) continue;
    rowVersions.add(event.version);
    row.events.push(event);
  }
  for (const row of rows.values()) row.events.sort((a, b) => a.version - b.version);
  return { rows, ignored, inHand, keyFailures };
}

/** Whether every version from `from` to `to` is in hand. */
export function holdsRange<Event>(versions: ReadonlyMap<number, Event> | undefined, from: number, to: number): boolean {
  for (let version = from; version <= to; version++) if (versions?.has(version) !== true) return false;
  return true;
}

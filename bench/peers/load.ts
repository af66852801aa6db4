import { pool } from '../support/stats';
import { sample, time, type Metered, type Sample } from './measure';

export const LOAD_LENGTHS = [10, 100, 1000] as const;
const FILL_PER_APPEND = 50;

export const loadIds = (length: number, perLength: number) => Array.from({ length: perLength }, (_, i) => `len${length}-${i}`);

/** Writes the streams to load, 50 events an append (not measured), and the snapshots the peer leaves to its caller. */
export async function fillForLoad(m: Metered, perLength: number): Promise<void> {
  const ids = LOAD_LENGTHS.flatMap((length) => loadIds(length, perLength).map((orderId) => ({ orderId, length })));
  await pool(ids.length, 8, async (i) => {
    const { orderId, length } = ids[i] as { orderId: string; length: number };
    for (let version = 0; version < length; version += FILL_PER_APPEND)
      await m.peer.append(orderId, version, Math.min(FILL_PER_APPEND, length - version));
    if (m.peer.loadWithSnapshot !== undefined) await m.peer.prepareSnapshot(orderId);
  });
}

/**
 * `loads` loads, one after another, of the streams of `length` in turn: a latency per load; `events` counts
 * loads, so the per-event figures of the sample are per load. Every load must fold the whole stream.
 */
export function loadRound(m: Metered, length: number, perLength: number, withSnapshot: boolean, loads = perLength): Promise<Sample> {
  const ids = loadIds(length, perLength);
  const load = withSnapshot ? m.peer.loadWithSnapshot : m.peer.load;
  if (load === undefined) throw new Error(`${m.peer.name} has no snapshots`);
  return sample(m, loads, async (latency) => {
    for (let i = 0; i < loads; i++) {
      const orderId = ids[i % ids.length] as string;
      let version = -1;
      latency(await time(async () => (version = (await load(orderId)).version)));
      if (version !== length) throw new Error(`${m.peer.name} loaded ${orderId} at version ${version}, not ${length}`);
    }
    return 0;
  });
}

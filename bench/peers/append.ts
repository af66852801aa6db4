import { pool } from '../support/stats';
import { sample, time, type Metered, type Sample } from './measure';

export const APPEND_WRITERS = 16;
export const EVENTS_PER_APPEND = 5;
const STREAMS_PER_WRITER = 1;

/**
 * 16 writers, each on its own stream per round, appending `eventsPerAppend` events at a time (5, or 1) with
 * the expected version they know (versions 0, 5, 10, ...): one latency per append.
 */
export function appendRound(m: Metered, round: number, appendsPerWriter: number, eventsPerAppend = EVENTS_PER_APPEND): Promise<Sample> {
  return sample(m, APPEND_WRITERS * appendsPerWriter * eventsPerAppend, async (latency) => {
    await Promise.all(
      Array.from({ length: APPEND_WRITERS }, async (_, w) => {
        for (let i = 0; i < appendsPerWriter; i++) {
          const orderId = `a${eventsPerAppend}x${round}-w${w}-s${i % STREAMS_PER_WRITER}`;
          const expected = Math.floor(i / STREAMS_PER_WRITER) * eventsPerAppend;
          latency(await time(() => m.peer.append(orderId, expected, eventsPerAppend)));
        }
      }),
    );
    return 0;
  });
}

/**
 * 16 writers, each on its own stream, running `commandsPerWriter` commands one after another: a load, one
 * event decided on it, its append. The streams grow from empty, so later loads read more.
 */
export function commandRound(m: Metered, round: number, commandsPerWriter: number): Promise<Sample> {
  return sample(m, APPEND_WRITERS * commandsPerWriter, async (latency) => {
    await Promise.all(
      Array.from({ length: APPEND_WRITERS }, async (_, w) => {
        for (let i = 0; i < commandsPerWriter; i++) latency(await time(() => m.peer.command(`c${round}-w${w}`)));
      }),
    );
    return 0;
  });
}

/**
 * `writers` (50 in the full run) on one stream, one event at a time, each trying again on a conflict: one
 * latency per event, retries included.
 */
export function contendedRound(m: Metered, round: number, writers: number, appendsPerWriter: number): Promise<Sample> {
  const orderId = `hot-${round}`;
  return sample(m, writers * appendsPerWriter, async (latency) => {
    let conflicts = 0;
    await pool(writers * appendsPerWriter, writers, async () => {
      const start = performance.now();
      // Awaited first: `conflicts += await …` reads `conflicts` before the await, so concurrent writers' counts
      // overwrite each other.
      const met = await m.peer.appendContended(orderId);
      conflicts += met;
      latency(performance.now() - start);
    });
    return conflicts;
  });
}

/** A warm-up, not measured: connections open and code paths compiled. */
export async function warmUp(m: Metered): Promise<void> {
  await pool(32, APPEND_WRITERS, (i) => m.peer.append(`warm-${i}`, 0, EVENTS_PER_APPEND));
}

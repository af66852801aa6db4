import { Reaction } from '../../reactions';
import type { DynamoTimers } from '../../timers';
import type { CommandContext } from '../context';

/** Due timers counted at most: past it, the counts are lower bounds. */
const COUNTED_AT_MOST = 10_000;

/** A timer due longer than this is late: no sweep or wake-up fired it in time. */
export const LATE_AFTER_MS = 60_000;

/** The due and late timers of one table. */
export interface TimersStatus {
  readonly table: string;
  readonly due: number;
  readonly late: number;
  /** The counts stopped at {@link COUNTED_AT_MOST}. */
  readonly atLeast: boolean;
  /** How long the longest-due timer has been due. */
  readonly oldestDueMs: number | undefined;
}

/** What a reaction's delivery lags by: its streams' feeds', the largest (a Lambda-delivered one has no feed in the config). */
export interface ReactionStatus {
  readonly name: string;
  readonly feeds: ReadonlyArray<string>;
  readonly lagRecords: number | undefined;
  readonly lagIsLowerBound: boolean;
  readonly lagMs: number | undefined;
}

/** A feed's lag, as `status` measured it. */
export interface FeedLag {
  readonly name: string;
  readonly table: string;
  readonly shards: ReadonlyArray<{ readonly lagRecords: number; readonly lagIsLowerBound: boolean; readonly lagMs: number | undefined }>;
}

/** The due and late timers of each of the config's `timers`, read through their due-time index. */
export async function timersStatus(context: CommandContext): Promise<TimersStatus[]> {
  const statuses: TimersStatus[] = [];
  for (const timers of context.model.timers ?? []) statuses.push(await countDue(timers));
  return statuses;
}

async function countDue(timers: DynamoTimers): Promise<TimersStatus> {
  const now = timers.clock.now();
  let due = 0;
  let late = 0;
  let oldest: number | undefined;
  for await (const timer of timers.due({ now })) {
    due++;
    if (now - timer.at > LATE_AFTER_MS) late++;
    oldest = Math.min(oldest ?? timer.at, timer.at);
    if (due >= COUNTED_AT_MOST) break;
  }
  return { table: timers.table, due, late, atLeast: due >= COUNTED_AT_MOST, oldestDueMs: oldest === undefined ? undefined : now - oldest };
}

/** Each reaction (and workflow) among the config's projections, with the lag of the feeds that read its streams' tables. */
export function reactionsStatus(context: CommandContext, feeds: ReadonlyArray<FeedLag>): ReactionStatus[] {
  return Object.entries(context.projections).flatMap(([name, projection]) => {
    if (!(projection instanceof Reaction)) return [];
    const tables = new Set(projection.streams.map((stream) => stream.table));
    const reading = feeds.filter((feed) => tables.has(feed.table));
    const shards = reading.flatMap((feed) => feed.shards);
    const ages = shards.flatMap((shard) => (shard.lagMs === undefined ? [] : [shard.lagMs]));
    return [
      {
        name,
        feeds: reading.map((feed) => feed.name),
        lagRecords: reading.length === 0 ? undefined : shards.reduce((sum, shard) => sum + shard.lagRecords, 0),
        lagIsLowerBound: shards.some((shard) => shard.lagIsLowerBound),
        lagMs: ages.length === 0 ? undefined : Math.max(...ages),
      },
    ];
  });
}

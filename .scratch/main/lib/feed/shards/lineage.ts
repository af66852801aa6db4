import type { Shard } from '@aws-sdk/client-dynamodb-streams';
import { ChangeFeedTrimmedError } from '../../errors';
import type { ShardCheckpoint } from '../checkpoints';
import type { StartingPosition } from '../options';

/**
 * A shard as the feed's policy sees it: its id, its parent's, and whether it is closed
 * (has an `EndingSequenceNumber`, so no new records arrive in it).
 */
export interface ShardInfo {
  readonly shardId: string;
  readonly parentShardId: string | undefined;
  readonly closed: boolean;
}

/**
 * Where a shard reader starts (or restarts) reading.
 */
export type ShardPosition =
  | { readonly type: 'TRIM_HORIZON' }
  | { readonly type: 'LATEST' }
  | { readonly type: 'AFTER_SEQUENCE_NUMBER'; readonly sequenceNumber: string }
  | { readonly type: 'AT_SEQUENCE_NUMBER'; readonly sequenceNumber: string };

/**
 * A shard to read, and from where.
 */
export interface PlannedShard extends ShardInfo {
  readonly position: ShardPosition;
}

/**
 * What was decided about a shard missing from the describes: it left the stream, or it answers after all.
 */
export type MissingVerdict = 'gone' | 'present';

/**
 * What {@link planStart} needs: the stream as described, the consumer's checkpoints, and verdicts on missing shards.
 */
export interface StartInput {
  readonly streamArn: string;
  readonly shards: ReadonlyArray<ShardInfo>;
  readonly checkpoints: ReadonlyMap<string, ShardCheckpoint>;
  readonly startingPosition: StartingPosition;
  /** Verdicts on shards the plan asked to confirm; empty the first time. */
  readonly missing?: ReadonlyMap<string, MissingVerdict> | undefined;
}

/**
 * The start plan: either shards to confirm as gone first (a second describe, then GetShardIterator from
 * `position`), or what to read, what to checkpoint as finished without reading, and what is finished already.
 */
export type StartPlan =
  | { readonly kind: 'confirm'; readonly shards: ReadonlyArray<{ readonly shardId: string; readonly position: ShardPosition }> }
  | {
      readonly kind: 'ready';
      readonly read: ReadonlyArray<PlannedShard>;
      readonly markFinished: ReadonlyArray<string>;
      readonly finished: ReadonlyArray<string>;
    };

/**
 * Turns a DynamoDB Streams `Shard` into a {@link ShardInfo}; undefined for a shard without an id.
 */
export function toShardInfo(shard: Shard): ShardInfo | undefined {
  if (shard.ShardId === undefined) return undefined;
  return {
    shardId: shard.ShardId,
    parentShardId: shard.ParentShardId,
    closed: shard.SequenceNumberRange?.EndingSequenceNumber !== undefined,
  };
}

/**
 * Decides, before anything is read, where every shard starts, and whether records were lost while the
 * consumer was down. Throws `ChangeFeedTrimmedError` when a shard with a checkpoint has left the stream,
 * or (at a restart) when an unread shard's parent left it without being finished. At a fresh start
 * (no checkpoints at all) parents already gone predate the consumer and are checkpointed as finished.
 * A shard missing from the describe is only treated as gone once confirmed: the plan first asks for it.
 */
export function planStart(input: StartInput): StartPlan {
  const fresh = input.checkpoints.size === 0;
  const missing = input.missing ?? new Map<string, MissingVerdict>();
  const inStream = new Map(input.shards.map((shard) => [shard.shardId, shard]));
  const absent = absentShards(input, inStream);

  const unconfirmed = [...absent].filter(([shardId]) => !missing.has(shardId));
  if (unconfirmed.length > 0) {
    return { kind: 'confirm', shards: unconfirmed.map(([shardId, { position }]) => ({ shardId, position })) };
  }

  const markFinished: string[] = [];
  const shards = [...input.shards];
  for (const [shardId, { position, childId }] of absent) {
    if (missing.get(shardId) === 'present') {
      // It answers although no describe listed it. A parent has a child, so it is closed; a shard with a
      // checkpoint may be open: reading it tells.
      shards.push({ shardId, parentShardId: undefined, closed: childId !== undefined });
      continue;
    }
    if (position.type === 'AFTER_SEQUENCE_NUMBER') {
      throw new ChangeFeedTrimmedError(input.streamArn, shardId, position.sequenceNumber, 'the shard left the stream before it was read to its end');
    }
    if (!fresh) {
      throw new ChangeFeedTrimmedError(
        input.streamArn,
        shardId,
        undefined,
        `the parent of shard ${childId ?? '?'} left the stream before it was finished`,
      );
    }
    markFinished.push(shardId);
  }

  const read: PlannedShard[] = [];
  const finished: string[] = [];
  for (const shard of shards) {
    const checkpoint = input.checkpoints.get(shard.shardId);
    if (checkpoint?.kind === 'finished') finished.push(shard.shardId);
    else if (checkpoint?.kind === 'sequence') {
      read.push({ ...shard, position: { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: checkpoint.sequenceNumber } });
    } else if (fresh && input.startingPosition === 'LATEST') {
      if (shard.closed) markFinished.push(shard.shardId);
      else read.push({ ...shard, position: { type: 'LATEST' } });
    } else read.push({ ...shard, position: { type: 'TRIM_HORIZON' } });
  }
  return { kind: 'ready', read, markFinished, finished };
}

/**
 * Shards the plan depends on that no describe listed: checkpointed shards, and the unfinished parents
 * of unread shards (a shard with a checkpoint of its own was started, so its parent no longer matters).
 */
function absentShards(
  input: StartInput,
  inStream: ReadonlyMap<string, ShardInfo>,
): Map<string, { position: ShardPosition; childId: string | undefined }> {
  const absent = new Map<string, { position: ShardPosition; childId: string | undefined }>();
  for (const [shardId, checkpoint] of input.checkpoints) {
    if (checkpoint.kind === 'sequence' && !inStream.has(shardId)) {
      absent.set(shardId, {
        position: { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: checkpoint.sequenceNumber },
        childId: undefined,
      });
    }
  }
  for (const shard of input.shards) {
    const parent = shard.parentShardId;
    if (parent === undefined || inStream.has(parent) || absent.has(parent)) continue;
    if (input.checkpoints.has(shard.shardId) || input.checkpoints.get(parent)?.kind === 'finished') continue;
    absent.set(parent, { position: { type: 'TRIM_HORIZON' }, childId: shard.shardId });
  }
  return absent;
}

/**
 * Whether a shard may start: it has no parent, or its parent is no longer pending (finished by this
 * feed, checkpointed as finished, or gone from the stream). A parent is read to its end before its
 * children, so one item's records stay in order across a split.
 */
export function canStart(shard: ShardInfo, pending: ReadonlySet<string>): boolean {
  return shard.parentShardId === undefined || !pending.has(shard.parentShardId);
}

/**
 * Shards of a describe the feed does not know yet (neither tracked nor finished), in the order given.
 */
export function newShards(described: ReadonlyArray<ShardInfo>, isKnown: (shardId: string) => boolean): ShardInfo[] {
  return described.filter((shard) => !isKnown(shard.shardId));
}

/**
 * Where a shard found while running starts: after its checkpoint if it has one, else at its trim
 * horizon (its records follow its parent's); undefined if it is checkpointed as finished.
 */
export function discoveredPosition(checkpoint: ShardCheckpoint | undefined): ShardPosition | undefined {
  if (checkpoint?.kind === 'finished') return undefined;
  if (checkpoint?.kind === 'sequence') return { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: checkpoint.sequenceNumber };
  return { type: 'TRIM_HORIZON' };
}

/**
 * Whether the feed is over: the table's stream is disabled and every shard it lists was read to its end.
 * A stream that is still enabled never ends, even with every shard closed: a child may not be listed yet.
 */
export function streamEnded(
  status: string | undefined,
  shards: ReadonlyArray<ShardInfo>,
  finished: ReadonlySet<string>,
  pendingCount: number,
): boolean {
  const disabled = status === 'DISABLED' || status === 'DISABLING';
  return disabled && pendingCount === 0 && shards.every((shard) => finished.has(shard.shardId));
}

/**
 * Merges two describes of the stream: shards listed by either, the later one's details winning.
 */
export function mergeShards(earlier: ReadonlyArray<ShardInfo>, later: ReadonlyArray<ShardInfo>): ShardInfo[] {
  const merged = new Map(earlier.map((shard) => [shard.shardId, shard]));
  for (const shard of later) merged.set(shard.shardId, shard);
  return [...merged.values()];
}

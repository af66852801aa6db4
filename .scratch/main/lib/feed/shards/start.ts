import { ChangeFeedError, CheckpointStoreError, DynafoldError } from '../../errors';
import { sleep } from '../../util';
import type { CheckpointStore, FeedKey, ShardCheckpoint } from '../checkpoints';
import { mergeShards, planStart, type MissingVerdict, type ShardPosition, type StartPlan } from './lineage';
import type { StartingPosition } from '../options';
import { classifyFailure } from './retry';
import type { StreamSnapshot, StreamsApi } from './streams-api';

/** What the feed starts from: the plan, the stream as described, and the checkpoints loaded. */
export interface PreparedStart {
  readonly plan: Extract<StartPlan, { kind: 'ready' }>;
  readonly snapshot: StreamSnapshot;
  readonly checkpoints: ReadonlyMap<string, ShardCheckpoint>;
}

/**
 * Loads the consumer's checkpoints, describes the stream and plans the start (see `planStart`). A shard
 * the plan depends on but the describe lacks is confirmed before it is declared gone: a second describe,
 * then GetShardIterator from its position; not found or trimmed means gone, an answer means present.
 */
export async function prepareStart(deps: {
  readonly api: StreamsApi;
  readonly store: CheckpointStore;
  readonly key: FeedKey;
  readonly startingPosition: StartingPosition;
  readonly signal: AbortSignal;
}): Promise<PreparedStart> {
  const { api, key, startingPosition } = deps;
  const checkpoints = await loadCheckpoints(deps.store, key);
  let snapshot = await api.describe();
  const missing = new Map<string, MissingVerdict>();
  for (let round = 0; ; round++) {
    const plan = planStart({ streamArn: key.streamArn, shards: snapshot.shards, checkpoints, startingPosition, missing });
    if (plan.kind === 'ready') return { plan, snapshot, checkpoints };
    const again = await api.describe();
    snapshot = { status: again.status, shards: mergeShards(snapshot.shards, again.shards) };
    let waitForListing = false;
    for (const { shardId, position } of plan.shards) {
      if (snapshot.shards.some((shard) => shard.shardId === shardId)) continue;
      const verdict = await probe(api, shardId, position);
      // A shard that answers but is not listed yet is listed soon (DescribeStream is eventually
      // consistent): wait for it, so that it is read with its own parent known, not at once.
      if (verdict === 'present' && round < LISTING_WAITS) waitForListing = true;
      else missing.set(shardId, verdict);
    }
    if (waitForListing) await sleep(Math.min(50 * 2 ** round, 1_000), deps.signal);
  }
}

/** Describes the start waits for a shard that answers but is not listed, before reading it with its lineage unknown. */
const LISTING_WAITS = 8;

async function loadCheckpoints(store: CheckpointStore, key: FeedKey): Promise<ReadonlyMap<string, ShardCheckpoint>> {
  try {
    return await store.getCheckpoints(key);
  } catch (error) {
    throw error instanceof DynafoldError ? error : new CheckpointStoreError('Reading the change feed checkpoints failed', { cause: error });
  }
}

/** Whether a shard no describe listed is gone (not found, or trimmed) or present after all (it answers GetShardIterator). */
export async function probe(api: StreamsApi, shardId: string, position: ShardPosition): Promise<MissingVerdict> {
  try {
    await api.shardIterator(shardId, position);
    return 'present';
  } catch (error) {
    const kind = classifyFailure(error);
    if (kind === 'notFound' || kind === 'trimmed') return 'gone';
    throw error instanceof DynafoldError ? error : new ChangeFeedError('GetShardIterator', error);
  }
}

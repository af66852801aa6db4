import { ChangeFeedError, CheckpointStoreError, DynafoldError } from '../errors';
import type { CheckpointStore, FeedKey, ShardCheckpoint } from './checkpoint-store';
import { mergeShards, planStart, type MissingVerdict, type ShardPosition, type StartPlan } from './lineage';
import type { StartingPosition } from './options';
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
 *
 * @example
 * ```ts
 * const { plan, snapshot } = await prepareStart({ api, store, key, startingPosition: 'TRIM_HORIZON' })
 * ```
 */
export async function prepareStart(deps: {
  readonly api: StreamsApi;
  readonly store: CheckpointStore;
  readonly key: FeedKey;
  readonly startingPosition: StartingPosition;
}): Promise<PreparedStart> {
  const { api, key, startingPosition } = deps;
  const checkpoints = await loadCheckpoints(deps.store, key);
  let snapshot = await api.describe();
  const missing = new Map<string, MissingVerdict>();
  for (;;) {
    const plan = planStart({ streamArn: key.streamArn, shards: snapshot.shards, checkpoints, startingPosition, missing });
    if (plan.kind === 'ready') return { plan, snapshot, checkpoints };
    const again = await api.describe();
    snapshot = { status: again.status, shards: mergeShards(snapshot.shards, again.shards) };
    for (const { shardId, position } of plan.shards) {
      if (snapshot.shards.some((shard) => shard.shardId === shardId)) continue;
      missing.set(shardId, await probe(api, shardId, position));
    }
  }
}

async function loadCheckpoints(store: CheckpointStore, key: FeedKey): Promise<ReadonlyMap<string, ShardCheckpoint>> {
  try {
    return await store.getCheckpoints(key);
  } catch (error) {
    throw error instanceof DynafoldError ? error : new CheckpointStoreError('Reading the change feed checkpoints failed', { cause: error });
  }
}

async function probe(api: StreamsApi, shardId: string, position: ShardPosition): Promise<MissingVerdict> {
  try {
    await api.shardIterator(shardId, position);
    return 'present';
  } catch (error) {
    const kind = classifyFailure(error);
    if (kind === 'notFound' || kind === 'trimmed') return 'gone';
    throw error instanceof DynafoldError ? error : new ChangeFeedError('GetShardIterator', error);
  }
}

import type { CheckpointStore, FeedKey, LeaseRecord, LeaseRequest, LeaseResult, ShardCheckpoint } from './checkpoint-store';
import { canTakeLease } from './lease-policy';

/**
 * A {@link CheckpointStore} in memory, for tests and for feeds that may start over. Its lease only
 * guards feeds of this process that share the store instance.
 *
 * @example
 * ```ts
 * const feed = new ChangeFeedConsumer({ streamsClient, streamArn, checkpoints: new MemoryCheckpointStore() })
 * ```
 */
export class MemoryCheckpointStore implements CheckpointStore {
  private readonly checkpoints = new Map<string, Map<string, ShardCheckpoint>>();
  private readonly leases = new Map<string, LeaseRecord>();

  async getCheckpoints(key: FeedKey): Promise<ReadonlyMap<string, ShardCheckpoint>> {
    return new Map(this.checkpoints.get(partition(key)));
  }

  async putCheckpoint(key: FeedKey, shardId: string, sequenceNumber: string): Promise<void> {
    this.shards(key).set(shardId, { kind: 'sequence', sequenceNumber });
  }

  async putFinished(key: FeedKey, shardId: string): Promise<void> {
    this.shards(key).set(shardId, { kind: 'finished' });
  }

  async clearCheckpoints(key: FeedKey): Promise<void> {
    this.checkpoints.delete(partition(key));
  }

  async acquireLease(key: FeedKey, request: LeaseRequest): Promise<LeaseResult> {
    const current = this.leases.get(partition(key));
    if (!canTakeLease(current, request.owner, request.now)) return { acquired: false, holder: current };
    return this.write(key, request);
  }

  async renewLease(key: FeedKey, request: LeaseRequest): Promise<LeaseResult> {
    const current = this.leases.get(partition(key));
    if (current?.owner !== request.owner) return { acquired: false, holder: current };
    return this.write(key, request);
  }

  async releaseLease(key: FeedKey, owner: string): Promise<void> {
    if (this.leases.get(partition(key))?.owner === owner) this.leases.delete(partition(key));
  }

  async getLease(key: FeedKey): Promise<LeaseRecord | undefined> {
    return this.leases.get(partition(key));
  }

  private write(key: FeedKey, request: LeaseRequest): LeaseResult {
    const expiresAt = request.now + request.durationMs;
    this.leases.set(partition(key), { owner: request.owner, expiresAt });
    return { acquired: true, expiresAt };
  }

  private shards(key: FeedKey): Map<string, ShardCheckpoint> {
    let shards = this.checkpoints.get(partition(key));
    if (shards === undefined) {
      shards = new Map();
      this.checkpoints.set(partition(key), shards);
    }
    return shards;
  }
}

function partition(key: FeedKey): string {
  return `${key.consumer}#${key.streamArn}`;
}

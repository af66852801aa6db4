/**
 * Which feed a checkpoint or lease belongs to: one application reading one stream.
 *
 * @example
 * ```ts
 * const key: FeedKey = { consumer: 'audit', streamArn }
 * ```
 */
export interface FeedKey {
  /** The application reading the stream (the feed's `consumer` option). */
  readonly consumer: string;
  /** The DynamoDB stream read. */
  readonly streamArn: string;
}

/**
 * Where a consumer got to in one shard: after `sequenceNumber`, or past the shard's end.
 *
 * @example
 * ```ts
 * const position: ShardCheckpoint = { kind: 'sequence', sequenceNumber: '000000000000000000042' }
 * ```
 */
export type ShardCheckpoint = { readonly kind: 'sequence'; readonly sequenceNumber: string } | { readonly kind: 'finished' };

/**
 * The feed's lease as stored: who holds it and until when (epoch milliseconds).
 *
 * @example
 * ```ts
 * const lease: LeaseRecord = { owner: 'host-1234-ab12', expiresAt: Date.now() + 30_000 }
 * ```
 */
export interface LeaseRecord {
  readonly owner: string;
  readonly expiresAt: number;
}

/**
 * The answer to a lease acquisition or renewal: ours until `expiresAt`, or held by `holder`
 * (undefined when a renewal finds no lease at all).
 *
 * @example
 * ```ts
 * const result = await store.acquireLease(key, { owner, durationMs: 30_000, now: Date.now() })
 * if (!result.acquired) console.log(`held by ${result.holder?.owner}`)
 * ```
 */
export type LeaseResult =
  { readonly acquired: true; readonly expiresAt: number } | { readonly acquired: false; readonly holder: LeaseRecord | undefined };

/**
 * What a lease write needs: who asks, for how long, and the asker's clock.
 *
 * @example
 * ```ts
 * await store.renewLease(key, { owner, durationMs: 30_000, now: Date.now() })
 * ```
 */
export interface LeaseRequest {
  readonly owner: string;
  readonly durationMs: number;
  /** The asker's clock, epoch ms: a lease whose `expiresAt` is at or before it has lapsed. */
  readonly now: number;
}

/**
 * Keeps each shard's checkpoint and the feed's lease. Every method rejects with
 * `CheckpointStoreError` when the store can't be read or written.
 *
 * Lease writes are conditional: `acquireLease` succeeds when the lease is absent, lapsed or already
 * the caller's; `renewLease` only when the caller still holds it; `releaseLease` deletes it only if so.
 *
 * @example
 * ```ts
 * const checkpoints: CheckpointStore = new MemoryCheckpointStore()
 * await checkpoints.putCheckpoint({ consumer: 'audit', streamArn }, 'shardId-1', '000000000000000000042')
 * ```
 */
export interface CheckpointStore {
  /** Every shard checkpoint of the consumer and stream, by shard id. */
  getCheckpoints(key: FeedKey): Promise<ReadonlyMap<string, ShardCheckpoint>>;
  /** Records that the consumer is done with the shard up to and including `sequenceNumber`. */
  putCheckpoint(key: FeedKey, shardId: string, sequenceNumber: string): Promise<void>;
  /** Records that the shard was read to its end (or predates the consumer) and is never read again. */
  putFinished(key: FeedKey, shardId: string): Promise<void>;
  /** Deletes every checkpoint of the consumer and stream, so that the next start reads from `startingPosition`. */
  clearCheckpoints(key: FeedKey): Promise<void>;
  /** Takes the lease if it is absent, lapsed at `now`, or already held by `owner`. */
  acquireLease(key: FeedKey, request: LeaseRequest): Promise<LeaseResult>;
  /** Extends the lease to `now + durationMs` if `owner` still holds it. */
  renewLease(key: FeedKey, request: LeaseRequest): Promise<LeaseResult>;
  /** Deletes the lease if `owner` holds it; does nothing otherwise. */
  releaseLease(key: FeedKey, owner: string): Promise<void>;
  /** The lease as stored, if any. */
  getLease(key: FeedKey): Promise<LeaseRecord | undefined>;
}

/**
 * `dynafold/feed`: a change-feed consumer that polls the DynamoDB Streams API itself (shards, lineage,
 * checkpoints, lease), for services, containers, scripts and DynamoDB Local.
 * Needs `@aws-sdk/client-dynamodb-streams`.
 */
export { ChangeFeedConsumer } from './consumer';
export { ChangeFeedDefaults, defaultLeaseOwner } from './options';
export type { ChangeFeedOptions, LeaseOptions, StartingPosition } from './options';
export type { ChangeFeedBatch, ChangeFeedRecord } from './batch';
export { resolveCompletion } from './completion';
export type { Completion, PartialBatchResponse } from './completion';
export type { CheckpointStore, FeedKey, LeaseRecord, LeaseRequest, LeaseResult, ShardCheckpoint } from './checkpoint-store';
export { DynamoCheckpointStore, DynamoCheckpointStoreDefaults } from './dynamo-checkpoint-store';
export type { DynamoCheckpointStoreOptions } from './dynamo-checkpoint-store';
export { MemoryCheckpointStore } from './memory-checkpoint-store';
export { runBatches } from './run-batches';
export type { ChangeFeedSource } from './run-batches';
export type { ChangeFeedLogger } from './logger';
export type { ChangeFeedStatus, ShardMetrics } from './metrics';
export { canStart, planStart, streamEnded, toShardInfo } from './lineage';
export type { PlannedShard, ShardInfo, ShardPosition, StartInput, StartPlan } from './lineage';
export { canTakeLease, leaseWaitDelay, renewalDeadline } from './lease-policy';
export {
  ChangeFeedError,
  ChangeFeedTrimmedError,
  CheckpointStoreError,
  ConfigurationError,
  DynafoldError,
  LeaseHeldError,
  LeaseLostError,
} from '../errors';
export { runChangeFeed } from './run-change-feed';
export type { FeedProjections, RunChangeFeedOptions } from './run-change-feed';

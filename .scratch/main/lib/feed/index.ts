/**
 * `dynafold/feed`: a change-feed consumer that polls the DynamoDB Streams API itself (shards, lineage,
 * checkpoints, lease), for services, containers, scripts and DynamoDB Local.
 * Needs `@aws-sdk/client-dynamodb-streams`. This file is the subpath's public API.
 */
export { ChangeFeedConsumer } from './consumer';
export { runChangeFeed } from './run-change-feed';
export type { FeedProjections, RunChangeFeedOptions } from './run-change-feed';
export { runBatches } from './run-batches';
export type { ChangeFeedSource } from './run-batches';
export { ChangeFeedDefaults, ChangeFeedLimits, defaultLeaseOwner } from './options';
export type { ChangeFeedOptions, LeaseOptions, StartingPosition } from './options';
export type { ChangeFeedBatch, ChangeFeedRecord } from './batch';
export type { PartialBatchResponse } from '../lambda';
export type { CheckpointStore, FeedKey, LeaseRecord, LeaseRequest, LeaseResult, ShardCheckpoint } from './checkpoints';
export { DynamoCheckpointStore, DynamoCheckpointStoreDefaults, DynamoCheckpointStoreLimits } from './checkpoints';
export type { DynamoCheckpointStoreOptions } from './checkpoints';
export { MemoryCheckpointStore } from './checkpoints';
/** The feed's logger: any `Logger` (kept under its 0.1 name). */
export type { Logger, Logger as ChangeFeedLogger } from '../util';
export type { ChangeFeedStatus, ShardMetrics } from './metrics';
export { readStreamRecords } from './read-stream-records';
export { replayFailure, streamBatchInfo } from './replay-failure';
export type { ReplayFailureOptions, StreamBatchInfo } from './replay-failure';
export {
  ChangeFeedError,
  ChangeFeedTrimmedError,
  CheckpointStoreError,
  ConfigurationError,
  DynafoldError,
  LeaseHeldError,
  LeaseLostError,
  ReplayRangeError,
  StreamRecordError,
} from '../errors';

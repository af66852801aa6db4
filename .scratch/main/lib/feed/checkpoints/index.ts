// Checkpoint stores: the interface (checkpoint-store), DynamoDB's and the in-memory one, and the lease's
// policy they share (lease-policy).
export type { CheckpointStore, FeedKey, LeaseRecord, LeaseRequest, LeaseResult, ShardCheckpoint } from './checkpoint-store';
export { DynamoCheckpointStore, DynamoCheckpointStoreDefaults, DynamoCheckpointStoreLimits } from './dynamo-checkpoint-store';
export type { DynamoCheckpointStoreOptions } from './dynamo-checkpoint-store';
export { leaseWaitDelay, renewalDeadline } from './lease-policy';
export { MemoryCheckpointStore } from './memory-checkpoint-store';

/**
 * dynafold: event sourcing on DynamoDB.
 * - store: event streams (optimistic appends, reads, snapshots, commands), decoders and read models;
 * - projector: exactly-once, in-order projections of DynamoDB Streams records into read models.
 * The change feed lives in `dynafold/feed`, the embedded DynamoDB Local in `dynafold/local`.
 */
export * from './store';
export * from './projector';
export {
  DynafoldError,
  ConcurrencyError,
  ValidationError,
  TransactionLimitError,
  DecodeError,
  ConfigurationError,
  DynamoRequestError,
  ConcurrentModificationError,
  StreamRecordIdentifierMissingError,
  ChangeFeedTrimmedError,
  LeaseHeldError,
  LeaseLostError,
  CheckpointStoreError,
  ChangeFeedError,
} from './errors';
export type { ValidationIssue } from './errors';

/**
 * dynafold: event sourcing on DynamoDB.
 * - store: event streams (optimistic appends, reads, snapshots, commands), decoders and read models;
 * - projector: exactly-once, in-order projections of DynamoDB Streams records into read models.
 * The change feed lives in `dynafold/feed`, the Lambda handlers in `dynafold/lambda`, the embedded DynamoDB
 * Local in `dynafold/local`.
 *
 * This file is the package's public API: every name a user may import is listed here by name.
 */
export {
  EventStream,
  EventStreamDefaults,
  DEFAULT_SNAPSHOT_NAME,
  decoder,
  eventFilterPattern,
  unmarshallImage,
  ReadModel,
  eventsTableDefinition,
  readModelTableDefinition,
} from './store';
export type {
  EventStreamOptions,
  AppendOptions,
  AppendRetry,
  ReadRange,
  AppendResult,
  Decider,
  LoadOptions,
  Loaded,
  CommandOptions,
  CommandResult,
  InlineProjection,
  InlineResult,
  InlineApplied,
  InlineDeferred,
  InlineDeferral,
  Snapshot,
  CompressionOptions,
  CompressionAlgorithm,
  Decoded,
  EventFilterOptions,
  StreamImage,
  AnyEventStream,
  ReadModelOptions,
  KeyOfModel,
  AnyKeyValues,
  KeyValues,
  QueryValues,
  IndexName,
  Stored,
  ReadOptions,
  Page,
  KeyDefinition,
  IndexDefinition,
  PrimaryKeyDefinition,
  StreamEvent,
  EventOf,
  NewEventOf,
  EventSchemas,
  StreamIdOf,
  Fold,
  ProjectedRow,
  ProjectedRows,
  ProjectionWaiter,
  WaitForProjections,
  WaitTiming,
} from './store';
export { TransactionLimits } from './dynamo';
export { DataLimits } from './store';
export type { Logger, LogLevel } from './util';
export {
  Projection,
  MultiSourceProjection,
  ProjectionDefaults,
  skipEvent,
  removeRow,
  processBatch,
  BatchResponse,
  batchResponse,
  OutboxRelay,
  OutboxRelayDefaults,
  outboxTableDefinition,
} from './projector';
export type {
  ProjectionBatchResult,
  AnyProjection,
  ProjectionOptions,
  CommonProjectionOptions,
  EventsOfStream,
  StreamIdOfStream,
  RowOfModel,
  SkipEvent,
  RemoveRow,
  RowOutcome,
  AppliedOutcome,
  MultiSourceRowOutcome,
  MultiSourceAppliedOutcome,
  FailedOutcome,
  ParkedOutcome,
  ParkedRow,
  EventRef,
  PoisonPolicy,
  ApplyResult,
  Rejected,
  ProcessBatchOptions,
  ProcessResult,
  Unrouted,
  OutcomeOf,
  OnBatch,
  BatchMetrics,
  ProjectionMetrics,
  ApplyStats,
  PartialBatchResponse,
  StreamRecordLike,
  RecordSource,
  RecordReading,
  DecodeFailure,
  CallOptions,
  RebuildResult,
  WaitForOptions,
  BackfillOptions,
  BackfillProgress,
  MultiSourceProjectionOptions,
  Source,
  Sources,
  OutboxRelayOptions,
  RelayResult,
  OutboxOptions,
  OutboxMessage,
} from './projector';
// Every error class, the code catalogue and their types: all public.
export * from './errors';
// Moved to `dynafold/lambda`; re-exported here until the next minor version.
export {
  /** @deprecated Import from 'dynafold/lambda'. */
  lambdaHandler,
  /** @deprecated Import from 'dynafold/lambda'. */
  kinesisHandler,
  /** @deprecated Import from 'dynafold/lambda'. */
  LambdaHandlerDefaults,
} from './lambda';
export type {
  /** @deprecated Import from 'dynafold/lambda'. */
  LambdaHandlerOptions,
  /** @deprecated Import from 'dynafold/lambda'. */
  LambdaContextLike,
  /** @deprecated Import from 'dynafold/lambda'. */
  LambdaStreamEvent,
  /** @deprecated Import from 'dynafold/lambda'. */
  LambdaStreamRecord,
  /** @deprecated Import from 'dynafold/lambda'. */
  LambdaStreamChange,
  /** @deprecated Import from 'dynafold/lambda'. */
  LambdaAttributeValue,
  /** @deprecated Import from 'dynafold/lambda'. */
  LambdaKinesisEvent,
  /** @deprecated Import from 'dynafold/lambda'. */
  LambdaKinesisRecord,
  /** @deprecated Import from 'dynafold/lambda'. */
  LambdaKinesisPayload,
} from './lambda';

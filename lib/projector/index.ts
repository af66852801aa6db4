export { Projection } from './projection';
export type { ProjectionBatchResult, AnyProjection } from './projection';
export type { ProjectionOptions, EventsOfStream, StreamIdOfStream, RowOfModel, CallOptions } from './types';
export { skipEvent } from './skip';
export type { SkipEvent } from './skip';
export { ProjectionDefaults, LambdaHandlerDefaults } from './defaults';
export type {
  RowOutcome,
  AppliedOutcome,
  MultiSourceRowOutcome,
  MultiSourceAppliedOutcome,
  FailedOutcome,
  ParkedOutcome,
  ParkedRow,
  EventRef,
  ApplyResult,
  Rejected,
} from './outcome';
export type { PoisonPolicy } from './engine';
export { processBatch, answerAfter } from './process-batch';
export type { ProcessBatchOptions, ProcessResult, Unrouted, OutcomeOf, OnBatch, BatchMetrics, ProjectionMetrics } from './process-batch';
export type { ApplyStats } from './engine';
export { BatchResponse, batchResponse } from './batch-response';
export type { PartialBatchResponse } from './batch-response';
export type { StreamRecordLike, RecordSource, RecordReading, DecodeFailure } from './records';
export { kinesisHandler, lambdaHandler } from './lambda';
export type { LambdaHandlerOptions, LambdaContextLike } from './lambda';
export type {
  LambdaAttributeValue,
  LambdaKinesisEvent,
  LambdaKinesisPayload,
  LambdaKinesisRecord,
  LambdaStreamChange,
  LambdaStreamEvent,
  LambdaStreamRecord,
} from './lambda-event';
export type { RebuildResult } from './rebuild';
export type { WaitForOptions } from './read-your-writes';
export type { BackfillOptions, BackfillProgress } from './backfill-options';
export { removeRow } from './skip';
export type { RemoveRow } from './skip';
export { MultiSourceProjection } from './multi-source-projection';
export type { MultiSourceProjectionOptions, Source, Sources } from './multi-source-projection';
export type { CommonProjectionOptions } from './engine';
export { OutboxRelay, OutboxRelayDefaults } from './outbox-relay';
export type { OutboxRelayOptions, RelayResult } from './outbox-relay';
export { outboxTableDefinition } from './outbox';
export type { OutboxOptions, OutboxMessage } from './outbox';

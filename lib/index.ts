/**
 * dynafold: event sourcing on DynamoDB.
 * - store: event streams (optimistic appends, reads, snapshots, commands), decoders and read models;
 * - projector: exactly-once, in-order projections of DynamoDB Streams records into read models.
 * The change feed lives in `dynafold/feed`; the batch plumbing (`processBatch`, `BatchResponse`, the record
 * shapes, the Lambda and Kinesis handlers) in `dynafold/lambda`; the embedded DynamoDB Local in
 * `dynafold/local`.
 *
 * This file is the package's public API: every name a user may import is listed here by name.
 */
import * as Lambda from './lambda';
import type { AnyProjection } from './projector';
import type { AnyEventStream } from './store';

export {
  EventStream,
  EventStreamDefaults,
  DEFAULT_SNAPSHOT_NAME,
  olderVersion,
  retiredEvent,
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
  OlderEventVersion,
  EventTypeVersions,
  EventVersionsOf,
  RetiredEventData,
  RetiredEventSchema,
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
export type { TraceContext } from './telemetry';
export { DataLimits } from './store';
export type { Backoff, Logger, LogLevel, RetryOptions, Ttl } from './util';
export {
  Projection,
  MultiSourceProjection,
  ProjectionDefaults,
  skipEvent,
  removeRow,
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
  ApplyStats,
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
// Moved to `dynafold/lambda`; kept here until the next minor version. Declared rather than re-exported,
// so that the published declarations keep each name's deprecation (a re-export's comment is dropped).

/** @deprecated Import from 'dynafold/lambda'. */
export const processBatch = Lambda.processBatch;
/** @deprecated Import from 'dynafold/lambda'. */
export const BatchResponse = Lambda.BatchResponse;
/** @deprecated Import from 'dynafold/lambda'. */
export type BatchResponse = Lambda.BatchResponse;
/** @deprecated Import from 'dynafold/lambda'. */
export const batchResponse = Lambda.batchResponse;
/** @deprecated Import from 'dynafold/lambda'. */
export type ProcessBatchOptions<
  P extends Record<string, AnyProjection>,
  St extends Record<string, AnyEventStream>,
  R = Lambda.StreamRecordLike,
> = Lambda.ProcessBatchOptions<P, St, R>;
/** @deprecated Import from 'dynafold/lambda'. */
export type ProcessResult<
  P extends Record<string, AnyProjection>,
  St extends Record<string, AnyEventStream> = Record<string, AnyEventStream>,
  R = Lambda.StreamRecordLike,
> = Lambda.ProcessResult<P, St, R>;
/** @deprecated Import from 'dynafold/lambda'. */
export type Unrouted<St extends Record<string, AnyEventStream>> = Lambda.Unrouted<St>;
/** @deprecated Import from 'dynafold/lambda'. */
export type OutcomeOf<P> = Lambda.OutcomeOf<P>;
/** @deprecated Import from 'dynafold/lambda'. */
export type OnBatch<P extends Record<string, AnyProjection>, St extends Record<string, AnyEventStream>, R, Input> = Lambda.OnBatch<P, St, R, Input>;
/** @deprecated Import from 'dynafold/lambda'. */
export type BatchMetrics = Lambda.BatchMetrics;
/** @deprecated Import from 'dynafold/lambda'. */
export type ProjectionMetrics = Lambda.ProjectionMetrics;
/** @deprecated Import from 'dynafold/lambda'. */
export type PartialBatchResponse = Lambda.PartialBatchResponse;
/** @deprecated Import from 'dynafold/lambda'. */
export type StreamRecordLike = Lambda.StreamRecordLike;
/** @deprecated Import from 'dynafold/lambda'. */
export type RecordSource = Lambda.RecordSource;
/** @deprecated Import from 'dynafold/lambda'. */
export type RecordReading<R = Lambda.StreamRecordLike> = Lambda.RecordReading<R>;
/** @deprecated Import from 'dynafold/lambda'. */
export type DecodeFailure<R = Lambda.StreamRecordLike> = Lambda.DecodeFailure<R>;
/** @deprecated Import from 'dynafold/lambda'. */
export const lambdaHandler = Lambda.lambdaHandler;
/** @deprecated Import from 'dynafold/lambda'. */
export const kinesisHandler = Lambda.kinesisHandler;
/** @deprecated Import from 'dynafold/lambda'. */
export const LambdaHandlerDefaults = Lambda.LambdaHandlerDefaults;
/** @deprecated Import from 'dynafold/lambda'. */
export type LambdaHandlerOptions<
  P extends Record<string, AnyProjection>,
  St extends Record<string, AnyEventStream>,
  R = Lambda.LambdaStreamRecord,
  E = Lambda.LambdaStreamEvent,
> = Lambda.LambdaHandlerOptions<P, St, R, E>;
/** @deprecated Import from 'dynafold/lambda'. */
export type LambdaContextLike = Lambda.LambdaContextLike;
/** @deprecated Import from 'dynafold/lambda'. */
export type LambdaStreamEvent = Lambda.LambdaStreamEvent;
/** @deprecated Import from 'dynafold/lambda'. */
export type LambdaStreamRecord = Lambda.LambdaStreamRecord;
/** @deprecated Import from 'dynafold/lambda'. */
export type LambdaStreamChange = Lambda.LambdaStreamChange;
/** @deprecated Import from 'dynafold/lambda'. */
export type LambdaAttributeValue = Lambda.LambdaAttributeValue;
/** @deprecated Import from 'dynafold/lambda'. */
export type LambdaKinesisEvent = Lambda.LambdaKinesisEvent;
/** @deprecated Import from 'dynafold/lambda'. */
export type LambdaKinesisRecord = Lambda.LambdaKinesisRecord;
/** @deprecated Import from 'dynafold/lambda'. */
export type LambdaKinesisPayload = Lambda.LambdaKinesisPayload;

/**
 * dynafold: event sourcing on DynamoDB.
 * - store: event streams (optimistic appends, reads, snapshots, commands), decoders and read models;
 * - projector: exactly-once, in-order projections of DynamoDB Streams records into read models.
 * The change feed lives in `dynafold/feed`; the batch plumbing (`processBatch`, `BatchResponse`, the record
 * shapes, stream images and filter patterns, the Lambda and Kinesis handlers) in `dynafold/lambda`; the
 * outbox's table and relay in `dynafold/outbox`; personal data's subject keys, their table and key providers
 * in `dynafold/erasure` (the KMS provider in `dynafold/kms`); the types that signatures name but an app
 * seldom writes (read-your-writes waits, inline projections, schema-evolution shapes, key and event helpers,
 * option parts) in `dynafold/types`; the embedded DynamoDB Local in `dynafold/local`.
 *
 * This file is the package's public API: every name a user may import is listed here by name.
 */
import * as Lambda from './lambda';
import type { ProjectionSet } from './outcome';
import type { AnyEventStream } from './store';

export { EventStream, EventStreamDefaults, DEFAULT_SNAPSHOT_NAME, olderVersion, retiredEvent, decoder, eventsTableDefinition } from './store';
export { ReadModel, readModelTableDefinition } from './read-model';
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
  Snapshot,
  Decoded,
  AnyEventStream,
  StreamEvent,
  EventOf,
  NewEventOf,
} from './store';
export type { ReadModelOptions, KeyOfModel, Stored, ReadOptions, Page, KeyDefinition, IndexDefinition, PrimaryKeyDefinition } from './read-model';
export { TransactionLimits } from './dynamo';
export { DataLimits } from './store';
export { RecordedErrorLimits } from './util';
export type { Logger } from './util';
export { Projection, MultiSourceProjection, ProjectionDefaults, skipEvent, removeRow } from './projector';
export type {
  AnyProjection,
  ProjectionOptions,
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
  ApplyResult,
  Rejected,
  ApplyStats,
  CallOptions,
  RebuildResult,
  BackfillOptions,
  BackfillProgress,
  MultiSourceProjectionOptions,
  Source,
  Sources,
} from './projector';
// Every error class, the code catalogue and their types: all public.
export * from './errors';
// Moved to `dynafold/lambda`; kept here until the next minor version. Declared rather than re-exported,
// so that the published declarations keep each name's deprecation (a re-export's comment is dropped).

/** @deprecated Import from 'dynafold/lambda'. */
export const lambdaHandler = Lambda.lambdaHandler;
/** @deprecated Import from 'dynafold/lambda'. */
export const kinesisHandler = Lambda.kinesisHandler;
/** @deprecated Import from 'dynafold/lambda'. */
export const LambdaHandlerDefaults = Lambda.LambdaHandlerDefaults;
/** @deprecated Import from 'dynafold/lambda'. */
export type LambdaHandlerOptions<
  P extends ProjectionSet,
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

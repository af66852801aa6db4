export { Projection } from './projection';
export type { ProjectionBatchResult } from './projection';
export type { ProjectionOptions, EventsOfStream, StreamIdOfStream, RowOfModel, AnyProjection, CallOptions } from './types';
export { skipEvent, removeRow } from './skip';
export type { SkipEvent, RemoveRow } from './skip';
export { ProjectionDefaults } from './defaults';
export type { PoisonPolicy, CommonProjectionOptions } from './runtime';
export type { RebuildResult } from './rebuild';
export type { WaitForOptions } from './read-your-writes';
export type { BackfillOptions, BackfillProgress } from './backfill';
export { MultiSourceProjection } from './multi-source-projection';
export type { MultiSourceProjectionOptions, Source, Sources } from './multi-source-projection';
export { outboxTableDefinition } from './outbox';
export type { OutboxOptions } from './outbox';
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
  ApplyStats,
  Rejected,
} from '../outcome';
// For the other modules of this package (not re-exported by lib/index.ts):
export { OutboxLayout, outboxPut } from './outbox';
// A reaction is a kind of projection: its rows are its progress per source instance, its messages its effects.
export { ProjectionBase } from './projection-base';
export { singleSourceCheckpoints } from './checkpoints';
export type { ExtraPut, Key, MessageBatch, RowMessages } from './engine';

// What applying events to rows reports, and what a transport needs of a projection: the contract between
// the projector (which fills it in) and the transports that route records to it (lib/lambda, lib/feed).
export { eventRef } from './outcome';
export type {
  ApplyResult,
  ApplyStats,
  AppliedOutcome,
  Entry,
  EventRef,
  FailedOutcome,
  MultiSourceAppliedOutcome,
  MultiSourceRowOutcome,
  ParkedOutcome,
  ParkedRow,
  Rejected,
  RowOutcome,
} from './outcome';
export type { AnyProjection, CallOptions, EntryOptions } from './any-projection';
export { namedProjections, projectionsByName, projectionsOf } from './projection-set';
export type { ProjectionSet, ProjectionsByName } from './projection-set';

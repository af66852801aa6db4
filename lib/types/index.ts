/**
 * `dynafold/types`: the types the core's signatures name that an app seldom writes: the parts of options
 * and results (read-your-writes waits, inline projections, retries and backoff, TTLs, compression, log
 * levels, poison policies, the trace context an event carries, an error as a row's records keep it), the shapes of schema evolution, the type
 * of a `decoder()`, and the type-level helpers that key, event and row types are computed with. Types only:
 * importing it loads nothing. This file is the subpath's public API.
 */
export type { ProjectedRow, ProjectedRows, ProjectionWaiter, WaitForProjections, WaitTiming } from '../store';
export type { WaitForOptions } from '../projector';
export type { InlineProjection, InlineResult, InlineApplied, InlineDeferred, InlineDeferral } from '../store';
export type { OlderEventVersion, EventTypeVersions, EventVersionsOf, RetiredEventData, RetiredEventSchema } from '../store';
export type { AnyKeyValues, KeyValues, QueryValues, IndexName } from '../read-model';
export type { EventSchemas, StreamIdOf, Fold, CompressionOptions, CompressionAlgorithm } from '../store';
export type { Decoder } from '../store';
export type { EventsOfStream, StreamIdOfStream, RowOfModel, CommonProjectionOptions, PoisonPolicy, ProjectionBatchResult } from '../projector';
export type { ProjectionSet, ProjectionsByName } from '../outcome';
export type { Backoff, LogLevel, RecordedError, RetryOptions, Ttl } from '../util';
export type { TraceContext } from '../telemetry';

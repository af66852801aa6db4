export { EventStream } from './event-stream';
export type { EventStreamOptions, AppendOptions, AppendRetry } from './event-stream';
export type { Decider, LoadOptions, Loaded } from './load';
export type { CommandOptions, CommandResult } from './execute';
export type { InlineProjection, InlineResult, InlineApplied, InlineDeferred, InlineDeferral, InlinePlan, TransactPut } from './inline';
export { olderVersion, retiredEvent } from './codec';
export type { OlderEventVersion, EventTypeVersions, EventVersionsOf, RetiredEventData, RetiredEventSchema } from './codec';
export type { ProjectedRow, ProjectedRows, ProjectionWaiter, WaitForProjections, WaitTiming } from './read-your-writes';
export { DEFAULT_SNAPSHOT_NAME } from './snapshots';
export { DataLimits } from './plain-data';
export type { CompressionOptions, CompressionAlgorithm } from '../dynamo';
export { EventStreamDefaults } from './defaults';
export { decoder, eventFilterPattern, unmarshallImage } from './decoder';
export type { EventFilterOptions } from './decoder';
export type { Decoded, Decoder, StreamImage, AnyEventStream } from './decoder';
export { eventsTableDefinition } from './tables';
export type { EventsOfStream, StreamEvent, EventOf, EventSchemas, StreamIdOf, Fold, ReadRange, Snapshot } from './types';
export type { NewEventOf } from './codec';
export type { AppendResult } from './append';
// For the other modules of this package (not re-exported by lib/index.ts):
export { instanceKey } from './layout';
export { joinComposite } from './codec';
export { attributeIssues, describeDataIssues } from './plain-data';
export { zodIssues } from './schema-issues';
export { decodeImages } from './decoder';
export type { DecodedImage } from './decoder';
// The commit layer of a stream, for the modules that read its commits or scan its table (no other file
// sends requests to the events table).
export { commitsOf } from './stream-definition';
// An append planned and not sent, whose commits join a transaction of the caller's (a reaction's effects).
export { planAppendTo } from './append';
export type { AppendPlanning, PlannedAppend } from './append';
export type { CommitLog, InstanceSegment } from './commits';
export type { InstancePage, InstanceRef } from './commits';

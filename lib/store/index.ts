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
export { ReadModel } from './read-model';
export type { ReadModelOptions, Stored, ReadOptions, Page, KeyOfModel } from './read-model';
export type { AnyKeyValues, KeyValues, QueryValues, IndexName } from './read-model';
export type { KeyDefinition, IndexDefinition, PrimaryKeyDefinition } from './read-model';
export { eventsTableDefinition, readModelTableDefinition } from './tables';
export type { EventsOfStream, StreamEvent, EventOf, EventSchemas, StreamIdOf, Fold, ReadRange, Snapshot } from './types';
export type { NewEventOf } from './codec';
export type { AppendResult } from './append';
// For the other modules of this package (not re-exported by lib/index.ts):
export { instanceKey } from './layout';
export { decodeImages } from './decoder';
export type { DecodedImage } from './decoder';
// The commit layer of a stream, for the modules that read its commits or scan its table (no other file
// sends requests to the events table); `instancePages` with a client of one's own goes once they use it.
export { commitsOf } from './stream-definition';
export type { CommitLog, InstanceSegment } from './commits';
export { instancePages } from './commits';
export type { InstancePage, InstanceRef, InstanceScan } from './commits';
export { RowAttributes } from './read-model';
// The outbox's sealing, until it imports it from lib/personal (the store itself uses none of it).
export { openBlob, outboxContext, sealBlob, trailOf } from '../personal';
export type { SubjectKeys } from '../erasure';

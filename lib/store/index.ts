export { EventStream } from './event-stream';
export type { EventStreamOptions, AppendOptions, AppendRetry } from './event-stream';
export type { Decider, LoadOptions, Loaded, CommandOptions, CommandResult } from './command';
export type { InlineProjection, InlineResult, InlineApplied, InlineDeferred, InlineDeferral, InlinePlan, TransactPut } from './inline';
export type { Snapshot } from './read';
export { olderVersion, retiredEvent } from './codec';
export type { OlderEventVersion, EventTypeVersions, EventVersionsOf, RetiredEventData, RetiredEventSchema } from './codec';
export type { ProjectedRow, ProjectedRows, ProjectionWaiter, WaitForProjections, WaitTiming } from './read-your-writes';
export { DEFAULT_SNAPSHOT_NAME } from './read';
export { DataLimits } from './plain-data';
export type { CompressionOptions, CompressionAlgorithm } from '../dynamo';
export { EventStreamDefaults } from './defaults';
export { decoder, eventFilterPattern, unmarshallImage } from './decoder';
export type { EventFilterOptions } from './decoder';
export type { Decoded, Decoder, StreamImage, AnyEventStream } from './decoder';
export { eventsTableDefinition } from './tables';
export { SubjectKeys, SubjectKeysDefaults, LocalKeyProvider, subjectKeysTableDefinition } from './erasure';
export type {
  SubjectKeysOptions,
  ForgetResult,
  KeyReadStats,
  KeyProvider,
  LocalKeyProviderOptions,
  NewDataKey,
  PersonalDataOptions,
  PersonalDeclaration,
  PersonalFields,
  SubjectSource,
} from './erasure';
export type { EventsOfStream, StreamEvent, EventOf, EventSchemas, StreamIdOf, Fold, ReadRange } from './types';
export type { NewEventOf } from './codec';
export type { AppendResult } from './stream-appends';
// For the other modules of this package (not re-exported by lib/index.ts):
export { instanceKey } from './layout';
export { instancePages } from './read';
export type { InstancePage, InstanceRef, InstanceScan } from './read';
export { joinComposite } from './codec';
export { attributeIssues, describeDataIssues } from './plain-data';
export { zodIssues } from './schema-issues';
export { openBlob, outboxContext, sealBlob, trailOf } from './erasure';

// The codec and upcasting: events to items and back (event-codec), an append's commit and its keys
// (commit-codec, commit-keys), a stored event read back and upcast to today's version (stored-event, upcast,
// event-versions), composite ids (composite). For the store's other parts; not re-exported by lib/index.ts
// but for the public names the store's index lists.
export { fromCommitItem, toCommitItem, writtenEvents, isCommitOf } from './commit-codec';
export { SnapshotAttributes, fromSnapshotItem, snapshotKey, toSnapshotItem } from './snapshot-item';
export type { CommitStamp } from './commit-codec';
export type { VersionRange } from './commit-codec';
export { commitCountOf, commitEndOf, commitFirstVersionOf } from './commit-keys';
export { joinComposite, splitComposite } from './composite';
export { eventCodec, storedForm, validateMetadata, validateNewEvent } from './event-codec';
export type { EventCodec, ValidEvent } from './event-codec';
export { olderVersion, retiredEvent } from './event-versions';
export type { EventTypeVersions, EventVersionsOf, NewEventOf, OlderEventVersion, RetiredEventData, RetiredEventSchema } from './event-versions';
export { storedEventAttributes } from './stored-event';
export { personalSubjects } from './item-subjects';

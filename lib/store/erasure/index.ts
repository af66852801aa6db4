// Personal data and its erasure (crypto-shredding): declaring a stream's personal fields (declaration),
// subjects' data keys in their table (subject-keys, key-table, key-cache) wrapped by a key provider
// (key-provider), sealing an append's fields (seal-events) and opening them on every read (open-event,
// item-subjects), snapshots and outbox messages sealed for the subjects they hold (sealed-blob, trail).
export { SubjectKeys } from './subject-keys';
export type { SubjectKeysOptions, ForgetResult, KeyReadStats } from './subject-keys';
export { SubjectKeysDefaults } from './defaults';
export { LocalKeyProvider } from './key-provider';
export type { KeyProvider, LocalKeyProviderOptions, NewDataKey } from './key-provider';
export { subjectKeysTableDefinition, KeyTableLayout } from './key-table';
export { resolvePersonalData } from './declaration';
export type { PersonalDataOptions, PersonalDeclaration, PersonalFields, SubjectSource } from './declaration';
export type { PersonalCodec, SealedPersonal } from './personal-codec';
export { planSealing, sealFields } from './seal-events';
export type { EventAtVersion, EventToSeal, SealingTarget, SubjectPlan } from './seal-events';
export { openSealedFields } from './open-event';
export type { OpenedData, SealedEventRef } from './open-event';
export { loadKeysOf, personalSubjects } from './item-subjects';
export { TrailCollector, trailOf, withTrail } from './trail';
export type { Trail } from './trail';
export { openBlob, sealBlob } from './sealed-blob';
export type { BlobContext, OpenedBlob, SealedBlob } from './sealed-blob';
export { SNAPSHOT_FORMAT, outboxContext, snapshotContext, storedSnapshotContext } from './contexts';
export { SEAL_OVERHEAD_BYTES } from './cipher';

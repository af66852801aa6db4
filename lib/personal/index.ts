// Personal data below the store and lib/erasure. The port the store knows it by: the hooks a stream's
// codec seals and opens with (personal-codec), which its `personalData.keys` makes (`SubjectKeys`, in
// lib/erasure, implements them), and the trails that say whose personal data a decoded value holds in the
// clear (trail). The sealing both lib/erasure and the outbox use: AES-256-GCM with a context per place
// (cipher, contexts), values sealed for several subjects at once (sealed-blob), the keys a process loaded
// (known-key). The store loads none but the port: an app that declares no personal data bundles no key
// management, no declaration checks and no sealing of fields.
export type {
  DeclaringStream,
  EventToSeal,
  KeyLoader,
  OpenedData,
  OpenedState,
  PersonalCodec,
  PersonalDataKeys,
  SealEvent,
  SealedEvent,
  SealedEventRef,
  SealedPersonal,
  SealedState,
  SealingTarget,
  SnapshotPlace,
} from './personal-codec';
export { TrailCollector, trailOf, withTrail } from './trail';
export type { Trail } from './trail';
export { DATA_KEY_BYTES, SEAL_OVERHEAD_BYTES, SealFormat, dataKeyOf, keyedHash, newDataKey, open, seal, storedBytes } from './cipher';
export type { DataKey } from './cipher';
export { FIELD_FORMAT, SNAPSHOT_FORMAT, fieldContext, outboxContext, snapshotContext, storedFieldContext, storedSnapshotContext } from './contexts';
export { openBlob, sealBlob } from './sealed-blob';
export type { BlobContext, OpenedBlob, SealedBlob } from './sealed-blob';
export { knownKey } from './known-key';
export type { HeldKey, KnownKey, KnownKeys } from './known-key';

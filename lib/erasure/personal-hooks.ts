import { SNAPSHOT_FORMAT, openBlob, sealBlob, snapshotContext, storedSnapshotContext, type PersonalCodec } from '../personal';
import type { Declaration } from './declaration';
import type { KeyStore } from './key-store';
import { openSealedFields } from './open-event';
import { prepareSealing } from './seal-events';

/**
 * The hooks the store calls for a stream's personal data: the fields `declaration` names, sealed with the
 * subjects' keys of `keys` and opened with them (or read as their replacements once forgotten), and
 * snapshots of states that hold them sealed for their subjects, bound to their place and versions.
 */
export function personalHooks(keys: KeyStore, declaration: Declaration): PersonalCodec {
  return {
    keys,
    sealing: (target, events, signal) => prepareSealing(keys, declaration, target, events, signal),
    openFields: (raw, sealed, ref) => openSealedFields(keys, declaration, raw, sealed, ref),
    // A state that holds personal data opens only while none of its subjects is forgotten, and only beside
    // the versions it was saved with.
    sealState: (trail, state, place) => sealBlob(trail, state, snapshotContext(place), SNAPSHOT_FORMAT),
    openState: (body, shares, place, where) => openBlob(keys, body, shares, (format) => storedSnapshotContext(format, place), where),
  };
}

// The snapshot actions: saving one that only moves forward (sealed for the subjects whose personal data its
// state holds), loading the latest, and a load's first read of a snapshot with the newest events, each with
// the fallback to where 0.2 kept snapshots.
export { DEFAULT_SNAPSHOT_NAME, loadSnapshot, saveSnapshot, snapshotPage } from './snapshots';
export type { SnapshotSave } from './snapshots';

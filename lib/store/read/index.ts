// Reads and loads: a stream's events and head (stream-reader), snapshots (snapshots), folds from the
// latest snapshot (load-state, load-options) and the stream instances of a table (stream-instances).
export type { Decider, LoadOptions, Loaded, SnapshotOptions } from './load-options';
export { foldAfter, foldingEvolve, loadAndSnapshot, loadState, readConsistency, snapshotIfDue } from './load-state';
export type { LoadRange, LoadTarget } from './load-state';
export { DEFAULT_SNAPSHOT_NAME, loadLegacySnapshot, loadSnapshot, saveSnapshot } from './snapshots';
export type { Snapshot } from './snapshots';
export { instancePages } from './stream-instances';
export type { InstancePage, InstanceRef, InstanceScan } from './stream-instances';
export { readCommitHolding, readCommitsNewestFirst, readEvents, readHead, readSnapshotPage } from './stream-reader';
export type { SnapshotPage } from './stream-reader';

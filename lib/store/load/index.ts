// The load action: `load` folds a stream instance from its latest snapshot and the newer events, read with
// it in one Query where they fit (load-state, which `execute` shares), and saves a snapshot when one is due.
// Its options and a decider's shape (load-options) sit beside it.
export { load } from './load';
export type { Decider, LoadOptions, Loaded, SnapshotOptions } from './load-options';
export { foldAfter, foldingEvolve, loadAndSnapshot, loadState, readConsistency, snapshotIfDue } from './load-state';

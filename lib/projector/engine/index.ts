// The row engine, in the order a row's events flow through it: plan the call's events per row, read the
// rows, fold each row's events, build the conditional write, apply it (retrying lost races, parking a
// row whose events keep failing). The projections and their features reach it through this index.
export { planRows, callContext } from './plan-rows';
export type { ApplyStats, CallContext, Entry, InHand, RowGroup } from './plan-rows';
export { readRow, readRows, rowFromItem } from './read-rows';
export type { ReadRow, RowStore, ExtraPut } from './read-rows';
export { rowPut } from './read-rows';
export { foldRow, EventFailure } from './fold-row';
export type { Evolved, FoldInput, FoldResult } from './fold-row';
export { addresses, checkpointsOf, foldWrite, parkedEvents } from './build-write';
export { applyEntries, applyRow, withCallSignal } from './apply-row';
export { resolveRuntime, rowIdOf } from './runtime';
export type { CommonProjectionOptions, RowBasics, RowRuntime } from './runtime';
export { countsTowardsParking, eventRef, parkedRows } from './parking';
export type { PoisonPolicy } from './parking';
export { resolveCheckpoint } from './checkpoints';

// The row engine, in the order a call's events flow through it: plan them per row (plan-rows), read the
// rows (read-rows), fill gaps (read-gaps), fold each row's events (fold-row), build the conditional write
// (build-write, write-row), apply it, retrying lost races and parking a row whose events keep failing
// (apply-row, apply-entries, parking). Where a kind of row keeps its checkpoints is one strategy
// (checkpoints). The projections and their features reach the engine through this index.
export { planRows } from './plan-rows';
export type { Entry, InHand, Key, RowGroup, RowPlan } from './plan-rows';
export { callContext } from './call-context';
export type { ApplyStats, CallContext } from './call-context';
export { readRow, readRows, rowFromItem } from './read-rows';
export type { ReadRow } from './read-rows';
export type { RowStore } from './row-store';
export { rowPut } from './write-row';
export type { ExtraPut } from './write-row';
export { EventFailure } from './fold-row';
export type { Evolved } from './fold-row';
export { addresses, buildWrite, checkpointsOf } from './build-write';
export { applyRow } from './apply-row';
export { applyEntries, withCallSignal } from './apply-entries';
export { resolveRuntime, rowIdOf } from './runtime';
export type { CommonProjectionOptions, RowBasics, RowKindParts, RowRuntime } from './runtime';
export { countsTowardsParking, eventRef, listParked, replayParked, retryParkedRows } from './parking';
export type { PoisonPolicy } from './parking';
export { multiSourceCheckpoints, singleSourceCheckpoints } from './checkpoints';
export { resolveCheckpoint } from './checkpoint-field';

// The row engine, in the order a call's events flow through it: plan them per row (plan-rows), read the
// rows (read-rows), fill gaps (read-gaps), fold each row's events (fold-row), build the conditional write
// (build-write, write-row, row-marks), apply it, retrying lost races (apply-row, claim-row, row-watch), for
// every row of a call (apply-entries). What a row's fold takes and what a failure does is the operation's
// (operation), which each feature above the engine supplies (see docs/contributing.md).
// Where a kind of row keeps its checkpoints is one strategy (row-store). This index is what the operations
// and the kinds of rows need; nothing else leaves the engine.
export { applyEntries, withCallSignal } from './apply-entries';
export { applyRow } from './apply-row';
export { buildWrite } from './build-write';
export { callContext } from './call-context';
export type { CallContext } from './call-context';
export { EventFailure } from './fold-row';
export type { Evolved } from './fold-row';
export { forward } from './operation';
export type { Operation } from './operation';
export { planRows } from './plan-rows';
export type { Key, RowGroup } from './plan-rows';
export { readRow, readRows, rowFromItem } from './read-rows';
export type { ReadRow } from './read-rows';
export { eventsAbove } from './read-gaps';
export { withClearedMessages } from './row-marks';
export type { FailureRecord, ParkedRecord } from './row-marks';
export type { ExtraPut, MessageBatch, RowMessages } from './row-messages';
export { rowIdOf } from './row-store';
export type { CheckpointStrategy, RowBasics, RowRuntime, RowStore } from './row-store';
export { rowCondition, rowPut, sendRowWrite } from './write-row';
export { nextWrite } from './row-writes';

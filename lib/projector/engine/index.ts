// The row engine, in the order a call's events flow through it: plan them per row (plan-rows), read the
// rows (read-rows; or take them as this process last wrote them, row-memory, or as the call before left
// them, row-turns), fill gaps (read-gaps), fold
// each row's events (fold-row), build the conditional write (build-write, and write-row: the one place a
// row's write is built and sent), apply it, retrying lost races (apply-row, claim-row, row-watch), for every
// row of a call (apply-entries), or hand the writes to a transaction of the caller's (build-transaction).
// What a row's fold takes and what a failure does is the operation's (operation), which each feature above
// the engine supplies (see docs/contributing.md). Where a kind of row keeps its checkpoints, and what else a
// row records, are strategies (row-store); messages in a row's transaction come through a port
// (row-messages). This index is what the operations, the kinds of rows and the features need; nothing else
// leaves the engine.
export { applyEntries, withCallSignal } from './apply-entries';
export { applyRow } from './apply-row';
export { buildTransaction } from './build-transaction';
export { callContext } from './call-context';
export type { CallContext } from './call-context';
export type { Evolved } from './fold-row';
export { forward } from './operation';
export type { Operation, TransactionOperation } from './operation';
export { planRows } from './plan-rows';
export type { Key, RowGroup } from './plan-rows';
export { readRow, rowFromItem } from './read-rows';
export type { ReadRow } from './read-rows';
export { eventsAbove } from './read-gaps';
export type { ExtraPut, MessageBatch, RowMessages } from './row-messages';
export { RowMemory } from './row-memory';
export type { RowMemoryOptions } from './row-memory';
export { RowTurns } from './row-turns';
export { rowIdOf, withRecords } from './row-store';
export { SharedRowReads } from './shared-row-reads';
export type { CheckpointStrategy, RecordStrategy, RowBasics, RowRecords, RowRuntime, RowStore } from './row-store';
export { writeRecords } from './write-row';

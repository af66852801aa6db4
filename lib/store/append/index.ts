// The append action: `append` (the public path, and `execute`'s after its load) validates and goes to
// `appendValid` (append-tries), whose tries `appendWithRetries` drives (append-retries). Each try plans its
// commits (plan-commits), seals personal fields for the versions it writes at (seal-personal), and writes
// through the commit layer: one conditional Put, or a transaction with an idempotency sentinel
// (idempotency) and inline projections' rows (inline-append). Its options (append-options) and result
// (append-result) sit beside it. An append can also be planned and not sent (planned-append), its commits'
// Puts joining a transaction of the caller's.
export { append, appendAfterLoad } from './append';
export type { AppendOptions, AppendRetry } from './append-options';
export { resolveCallRetry } from './append-options';
export type { AppendResult, LostRace } from './append-result';
export type { SentinelTtl } from './idempotency';
export { planAppend, planAppendTo } from './planned-append';
export type { AppendPlanning, PlannedAppend } from './planned-append';

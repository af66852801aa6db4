// Appends: the commit's transaction or single Put (append-transaction, commit-put), idempotency sentinels
// (idempotency), inline projections in the append's transaction (inline-append), the retries of a lost race
// (append-retries), the versions known to end a commit, which spare an append its proof read
// (known-commit-ends), and the personal fields sealed before the first try (seal-personal).
// `stream-appends.ts` above puts them together for `EventStream.append`.
export { appendWithRetries } from './append-retries';
export type { AppendMode, AttemptOutcome, LostAppend } from './append-retries';
export { planCommits, sendAppend, sentinelKey } from './append-transaction';
export { fitsCommitPut, sendCommitPut } from './commit-put';
export { SentinelAttributes, assertSameRequest, requestHash } from './idempotency';
export type { SentinelTtl } from './idempotency';
export { sendInlineAppend, validateInline } from './inline-append';
export { sealPersonalData } from './seal-personal';
export { KnownCommitEnds } from './known-commit-ends';

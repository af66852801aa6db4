// The commit layer: every request on a stream's events table (commits, snapshots, idempotency sentinels,
// the Scan of its instances) goes through `CommitLog` (commit-log), which loads the keys of what it reads
// before decoding it (keys-before-decoding, which decoders of stream images share), remembers the versions
// it learns end a commit (known-commit-ends) and knows an append's own commits by its id. The Queries it
// sends (commit-queries), an append's transaction (commit-transaction), a snapshot page (snapshot-page) and
// the Scan (instance-scan) are its parts.
export { CommitLog } from './commit-log';
export type { CommitPutOutcome, Reading, SnapshotSlot } from './commit-log';
export type { AppendOutcome, CommitTransaction } from './commit-transaction';
export { instancePages } from './instance-scan';
export type { InstancePage, InstanceRef, InstanceScan, InstanceSegment } from './instance-scan';
export { loadKeysFor } from './keys-before-decoding';
export type { ItemToDecode } from './keys-before-decoding';
export type { SnapshotPage } from './snapshot-page';

// Backfill: the run over every events table's instances, segment by segment (backfill), one instance's
// events delivered page by page (instance), its options (options) and the progress it saves (progress).
export { backfillRows } from './backfill';
export type { BackfillOptions, BackfillProgress } from './options';

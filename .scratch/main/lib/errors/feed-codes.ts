import type { ErrorTable } from './catalogue';

/** The change feed's errors: code, HTTP status and class. `dynafold/feed` exports each of these classes. */
export const FeedCodes = {
  'feed.trimmed': { status: 500, error: 'ChangeFeedTrimmedError' },
  'feed.leaseHeld': { status: 409, error: 'LeaseHeldError' },
  'feed.leaseLost': { status: 409, error: 'LeaseLostError' },
  'feed.checkpointStore': { status: 502, error: 'CheckpointStoreError', transient: 'cause' },
  'feed.request': { status: 502, error: 'ChangeFeedError', transient: 'cause' },
  'feed.record': { status: 500, error: 'StreamRecordError' },
  // An OnFailure message whose range read back no record, or fewer than its batchSize.
  'feed.replayRange': { status: 500, error: 'ReplayRangeError' },
} as const satisfies ErrorTable;

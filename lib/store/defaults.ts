import type { Backoff } from '../util/backoff';

/** Defaults of {@link EventStream}, in one place. */
export const EventStreamDefaults = {
  /** @defaultValue gzip above 4 KiB of JSON */
  compression: { algorithm: 'gzip', thresholdBytes: 4096 },
  /** Retries of an append at the head (no `expectedVersion`) and of transaction conflicts. */
  appendAttempts: 10,
  appendBackoff: { initialMs: 5, maxMs: 200 } satisfies Backoff,
  /** Retries of a command on `ConcurrencyError`. */
  commandAttempts: 10,
  /** Items per Query page when reading a stream. */
  readPageSize: 1000,
} as const;

/** DynamoDB's limits on one TransactWriteItems request. */
export const TransactionLimits = {
  items: 100,
  itemBytes: 400 * 1024,
  transactionBytes: 4 * 1024 * 1024,
} as const;

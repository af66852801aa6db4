import type { Backoff } from '../util';

/** Defaults of timers ({@link DynamoTimers} and their sweep), in one place. */
export const TimerDefaults = {
  /**
   * Partitions of the due-time index a table's timers spread over (`DynamoTimers.shards`), so that many
   * timers scheduled at once do not write one index partition. Keep it: a timer is found in the shard it
   * was scheduled in, and lowering it strands the timers of the shards left out.
   */
  shards: 4,
  /** How long a fired or cancelled timer's record is kept (DynamoDB TTL on `ttl`, where enabled): a late firing finds it and does nothing. */
  recordTtlMs: 7 * 86_400_000,
  /** The attribute DynamoDB TTL expires fired and cancelled timers' records on. */
  ttlAttribute: 'ttl',
  /** Due timers fired at once by a sweep. */
  concurrency: 8,
  /** Due timers read per Query page of a sweep. */
  pageSize: 100,
  /** The change feed's process sweeps this often (`runTimerSweeps`). */
  sweepIntervalMs: 1000,
  /**
   * Tries of a timer's firing whose writes lose a race (a command's stream moved since its load): 8 in
   * all, waiting a jittered 20 ms growing ×2 to 1 s. Out of tries, the timer stays due for the next sweep.
   */
  retry: { attempts: 8, backoff: { initialMs: 20, maxMs: 1000 } satisfies Backoff },
} as const;

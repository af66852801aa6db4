import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ConfigurationError } from '../errors';
import {
  renamedOption,
  requireBackoff,
  requireInteger,
  requireNumber,
  requireText,
  warnDeprecated,
  type Backoff,
  type Logger,
  type RetryOptions,
} from '../util';
import type { CheckpointStore } from './checkpoints';
import type { ShardMetrics } from './metrics';

/**
 * Where shards start when the consumer has no checkpoints for the stream at all.
 *
 * @example
 * ```ts
 * new ChangeFeedConsumer({ ...options, startingPosition: 'LATEST' })
 * ```
 */
export type StartingPosition = 'TRIM_HORIZON' | 'LATEST';

/**
 * The feed's lease, kept in the checkpoint store, against an accidental second consumer.
 *
 * @example
 * ```ts
 * new ChangeFeedConsumer({ ...options, lease: { durationMs: 15_000, onHeld: 'wait' } })
 * ```
 */
export interface LeaseOptions {
  /** How long a taken or renewed lease lasts. @defaultValue 30000 */
  readonly durationMs?: number | undefined;
  /** How often the lease is renewed; must be less than half of `durationMs`. @defaultValue durationMs / 3 */
  readonly renewEveryMs?: number | undefined;
  /** What to do when another owner holds the lease: fail with `LeaseHeldError`, or wait for it. @defaultValue 'fail' */
  readonly onHeld?: 'fail' | 'wait' | undefined;
  /** This process's name in the lease. @defaultValue `<hostname>-<pid>-<random>` */
  readonly owner?: string | undefined;
}

/**
 * Options of a {@link ChangeFeedConsumer}. Durations are in milliseconds.
 *
 * @example
 * ```ts
 * const options: ChangeFeedOptions = { streamsClient, streamArn, checkpoints, consumer: 'projections', pollIntervalMs: 100 }
 * ```
 */
export interface ChangeFeedOptions {
  /** The Streams API client; the feed never constructs or destroys it. */
  readonly streamsClient: DynamoDBStreamsClient;
  /** The stream to read (the table's `LatestStreamArn`). */
  readonly streamArn: string;
  /** The application; checkpoints and the lease are kept per consumer. @defaultValue 'default' */
  readonly consumer?: string | undefined;
  /** Keeps shard checkpoints and the lease. */
  readonly checkpoints: CheckpointStore;
  /** Where shards start when the consumer has no checkpoints for the stream. @defaultValue 'TRIM_HORIZON' */
  readonly startingPosition?: StartingPosition | undefined;
  /** How long an idle open shard waits between empty reads. @defaultValue 1000 */
  readonly pollIntervalMs?: number | undefined;
  /** Records per batch (GetRecords `Limit`), 1 to 1000. @defaultValue 100 */
  readonly batchSize?: number | undefined;
  /** How often the whole stream is described again for new shards. @defaultValue 30000 */
  readonly describeIntervalMs?: number | undefined;
  /**
   * How long a disabled stream is watched before the feed ends: once every listed shard is drained, the
   * stream is described again this long after, and the feed ends only if no new shard appeared.
   * DescribeStream is eventually consistent, and a child opened just before the stream was disabled may be
   * listed late. 0 ends at once (DynamoDB Local lists its one shard at once). @defaultValue 10000
   */
  readonly disabledSettleMs?: number | undefined;
  /** GetShardIterator / GetRecords calls in flight at once, across all shards. @defaultValue 16 */
  readonly maxConcurrentReads?: number | undefined;
  /**
   * How throttled and failed requests, and a failed batch, are tried again: waiting `backoff` between
   * tries, without limit (throttling passes, and a feed that gave up would stall its shard), so only
   * `backoff` may be set. @defaultValue backoff `{ initialMs: 100, maxMs: 10000 }` ({@link ChangeFeedDefaults.retry})
   */
  readonly retry?: Pick<RetryOptions, 'backoff'> | undefined;
  /** @deprecated use `retry: { backoff }`; goes in the next minor version. */
  readonly backoff?: Backoff | undefined;
  /** The lease, or `false` to read without one. @defaultValue enabled with {@link ChangeFeedDefaults}.lease */
  readonly lease?: LeaseOptions | false | undefined;
  /** Stops the feed when aborted, like `stop()`. */
  readonly signal?: AbortSignal | undefined;
  /** Receives the feed's diagnostics (pino, Powertools Logger or console shape). */
  readonly logger?: Logger | undefined;
  /** Called with a shard's figures whenever they change (a read, an acknowledgement, a failure). */
  readonly onMetrics?: ((metrics: ShardMetrics) => void) | undefined;
}

/**
 * Defaults of {@link ChangeFeedOptions}, in one place.
 *
 * @example
 * ```ts
 * const fast = { pollIntervalMs: ChangeFeedDefaults.pollIntervalMs / 10 }
 * ```
 */
export const ChangeFeedDefaults = {
  consumer: 'default',
  startingPosition: 'TRIM_HORIZON',
  pollIntervalMs: 1_000,
  batchSize: 100,
  describeIntervalMs: 30_000,
  /** AWS documents no bound on how late DescribeStream lists a new shard: a margin of our choosing. */
  disabledSettleMs: 10_000,
  maxConcurrentReads: 16,
  retry: { backoff: { initialMs: 100, maxMs: 10_000 } },
  /** @deprecated use `ChangeFeedDefaults.retry.backoff`; goes in the next minor version. */
  get backoff(): Backoff {
    warnDeprecated(undefined, 'ChangeFeedDefaults.backoff', 'ChangeFeedDefaults.retry.backoff');
    return ChangeFeedDefaults.retry.backoff;
  },
  lease: { durationMs: 30_000, onHeld: 'fail' },
  /**
   * A batch neither committed nor completed this many poll intervals after it was handed out is logged at
   * warn, once: a forgotten `commit()` stalls its shard.
   */
  unacknowledgedWarningPolls: 10,
} as const satisfies Record<string, unknown>;

/** What the Streams API allows, apart from the defaults. */
export const ChangeFeedLimits = {
  /** GetRecords returns at most 1,000 records. */
  maxBatchSize: 1_000,
} as const;

/** A lease with every default applied. @inline */
export interface ResolvedLease {
  readonly durationMs: number;
  readonly renewEveryMs: number;
  readonly onHeld: 'fail' | 'wait';
  readonly owner: string;
}

/** {@link ChangeFeedOptions} with every default applied and validated. @inline */
export interface ResolvedChangeFeedOptions {
  readonly streamsClient: DynamoDBStreamsClient;
  readonly streamArn: string;
  readonly consumer: string;
  readonly checkpoints: CheckpointStore;
  readonly startingPosition: StartingPosition;
  readonly pollIntervalMs: number;
  readonly batchSize: number;
  readonly describeIntervalMs: number;
  readonly disabledSettleMs: number;
  readonly maxConcurrentReads: number;
  readonly backoff: Backoff;
  readonly lease: ResolvedLease | false;
  readonly signal: AbortSignal | undefined;
  readonly logger: Logger | undefined;
  readonly onMetrics: ((metrics: ShardMetrics) => void) | undefined;
}

/**
 * Applies the defaults and validates every option once, naming the option that can't be honoured.
 * Throws `ConfigurationError`.
 */
export function resolveChangeFeedOptions(options: ChangeFeedOptions): ResolvedChangeFeedOptions {
  const streamsClient = options.streamsClient as DynamoDBStreamsClient | undefined;
  if (streamsClient === undefined || typeof streamsClient.send !== 'function') {
    throw new ConfigurationError('Expected `streamsClient` to be a DynamoDBStreamsClient from @aws-sdk/client-dynamodb-streams');
  }
  const checkpoints = options.checkpoints as CheckpointStore | undefined;
  if (checkpoints === undefined || typeof checkpoints.getCheckpoints !== 'function') {
    throw new ConfigurationError('Expected `checkpoints` to be a CheckpointStore, e.g. a DynamoCheckpointStore');
  }
  const startingPosition = options.startingPosition ?? ChangeFeedDefaults.startingPosition;
  if (startingPosition !== 'TRIM_HORIZON' && startingPosition !== 'LATEST') {
    throw new ConfigurationError("Expected `startingPosition` to be 'TRIM_HORIZON' or 'LATEST'");
  }
  return {
    streamsClient,
    streamArn: requireText('streamArn', options.streamArn),
    consumer: requireText('consumer', options.consumer ?? ChangeFeedDefaults.consumer),
    checkpoints,
    startingPosition,
    pollIntervalMs: requireNumber('pollIntervalMs', options.pollIntervalMs ?? ChangeFeedDefaults.pollIntervalMs, 0),
    batchSize: requireInteger('batchSize', options.batchSize ?? ChangeFeedDefaults.batchSize, 1, ChangeFeedLimits.maxBatchSize),
    describeIntervalMs: requireNumber('describeIntervalMs', options.describeIntervalMs ?? ChangeFeedDefaults.describeIntervalMs, 1),
    disabledSettleMs: requireNumber('disabledSettleMs', options.disabledSettleMs ?? ChangeFeedDefaults.disabledSettleMs, 0),
    maxConcurrentReads: requireInteger('maxConcurrentReads', options.maxConcurrentReads ?? ChangeFeedDefaults.maxConcurrentReads, 1),
    backoff: resolveFeedBackoff(options),
    lease: options.lease === false ? false : resolveLease(options.lease ?? {}),
    signal: options.signal,
    logger: options.logger,
    onMetrics: options.onMetrics,
  };
}

/** The feed's backoff, from `retry.backoff` or the deprecated `backoff` (named as given in errors). */
function resolveFeedBackoff(options: ChangeFeedOptions): Backoff {
  // Typed as the full shape: a caller in plain JavaScript may pass `attempts` or `maxElapsedMs`, refused below.
  const retry = renamedOption<RetryOptions, Backoff>(
    {
      newName: 'retry',
      newValue: options.retry,
      oldName: 'backoff',
      oldValue: options.backoff,
      map: (backoff: Backoff) => ({ backoff }),
      replacement: 'retry: { backoff }',
    },
    options.logger,
  );
  const unbounded = (['attempts', 'maxElapsedMs'] as const).find((field) => retry?.[field] !== undefined);
  if (unbounded !== undefined) {
    throw new ConfigurationError(
      `The change feed retries without limit (a feed that gave up would stall its shard): leave out \`retry.${unbounded}\`.`,
    );
  }
  const option = options.backoff === undefined ? 'retry.backoff' : 'backoff';
  return requireBackoff(option, retry?.backoff ?? ChangeFeedDefaults.retry.backoff);
}

function resolveLease(lease: LeaseOptions): ResolvedLease {
  const durationMs = requireNumber('lease.durationMs', lease.durationMs ?? ChangeFeedDefaults.lease.durationMs, 1);
  const renewEveryMs = requireNumber('lease.renewEveryMs', lease.renewEveryMs ?? durationMs / 3, 1);
  // duration − 2 × renewEvery is the time left to retry a failed renewal in: it must not be empty.
  if (renewEveryMs * 2 >= durationMs) {
    throw new ConfigurationError(
      `Expected \`lease.renewEveryMs\` (${renewEveryMs}) to be less than half of \`lease.durationMs\` (${durationMs}), ` +
        'which leaves time to retry a failed renewal before the lease lapses',
    );
  }
  const onHeld = lease.onHeld ?? ChangeFeedDefaults.lease.onHeld;
  if (onHeld !== 'fail' && onHeld !== 'wait') throw new ConfigurationError("Expected `lease.onHeld` to be 'fail' or 'wait'");
  const owner = requireText('lease.owner', lease.owner ?? defaultLeaseOwner());
  return { durationMs, renewEveryMs, onHeld, owner };
}

/**
 * A lease owner name unique to this process: `<hostname>-<pid>-<random>`.
 *
 * @example
 * ```ts
 * defaultLeaseOwner() // 'web-1-4242-9f3a1c2b'
 * ```
 */
export function defaultLeaseOwner(): string {
  return `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

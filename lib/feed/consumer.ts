import { setMaxListeners } from 'node:events';
import { CheckpointStoreError, ConfigurationError, DynafoldError } from '../errors';
import type { AcknowledgementTarget, ChangeFeedBatch } from './batch';
import { Channel } from './channel';
import type { FeedKey } from './checkpoints';
import { ShardCoordinator } from './coordinator';
import { FeedLease } from './lease';
import { log, Semaphore, sleep } from '../util';
import type { ChangeFeedStatus } from './metrics';
import { resolveChangeFeedOptions, type ChangeFeedOptions, type ResolvedChangeFeedOptions } from './options';
import { retrying, type ShardReaderContext, prepareStart, StreamsApi } from './shards';

/**
 * Reads a DynamoDB stream by polling the Streams API: finds the shards and follows their lineage,
 * keeps iterators fresh, checkpoints what was acknowledged and holds a lease against a second consumer.
 * It is an AsyncIterable of {@link ChangeFeedBatch}es, one shard's records each; acknowledge every batch.
 * Delivery is at least once. The iteration ends when the table's stream is disabled and every shard is
 * drained, on `stop()`, when `signal` aborts, or when the loop `break`s; the lease is then released.
 * It fails with a `DynafoldError`: `ChangeFeedTrimmedError`, `LeaseHeldError`, `LeaseLostError`,
 * `CheckpointStoreError` or `ChangeFeedError`.
 *
 * @example
 * ```ts
 * const feed = new ChangeFeedConsumer({
 *   streamsClient: new DynamoDBStreamsClient({}),
 *   streamArn,
 *   consumer: 'audit',
 *   checkpoints: new DynamoCheckpointStore({ client, table: 'checkpoints' }),
 * })
 * for await (const batch of feed) {
 *   for (const record of batch.records) console.log(record.eventName, record.dynamodb?.Keys)
 *   await batch.commit()
 * }
 * ```
 */
export class ChangeFeedConsumer implements AsyncIterable<ChangeFeedBatch> {
  /** The options with every default applied. */
  readonly options: ResolvedChangeFeedOptions;
  private readonly controller = new AbortController();
  private readonly key: FeedKey;
  private iterating = false;
  private state: ChangeFeedStatus['state'] = 'idle';
  private error: Error | undefined;
  private lease: FeedLease | undefined;
  private coordinator: ShardCoordinator | undefined;
  private readonly channel = new Channel<ChangeFeedBatch>();
  private stopRequested = false;
  private failure: { error: unknown } | undefined;
  private shutdownDone: Promise<void> | undefined;

  /** Validates the options; throws `ConfigurationError` naming the first one that can't be honoured. */
  constructor(options: ChangeFeedOptions) {
    this.options = resolveChangeFeedOptions(options);
    // Every shard reader waits on this signal (a poll, an acknowledgement, a request in flight), so it has
    // listeners in proportion to the shards: Node's default of 10 would warn of a leak on any busy stream.
    // Each wait removes its listener when it ends.
    setMaxListeners(Number.POSITIVE_INFINITY, this.controller.signal);
    this.key = { consumer: this.options.consumer, streamArn: this.options.streamArn };
    const external = this.options.signal;
    if (external?.aborted) void this.stop();
    else external?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  /**
   * Stops reading and ends the iteration; resolves once it has ended and the lease is released (at once
   * if the feed was never iterated). Batches already handed out may still be acknowledged.
   */
  stop(): Promise<void> {
    this.stopRequested = true;
    this.controller.abort();
    // An iterator that was never pulled has no running body to clean up after it: do it here.
    return this.iterating ? this.shutdown() : Promise.resolve();
  }

  /**
   * Resolves once the feed has caught up: after this call, every shard was read to its tip (a GetRecords
   * answer with no records) and every batch read so far is acknowledged; or the stream was disabled and
   * every shard drained. A script can then read its rows, a test assert on them. Rejects with the feed's
   * error if it fails, with an `AbortError` if it is stopped first, and with `signal`'s reason. The feed
   * must be iterated meanwhile (`runChangeFeed` or a `for await` loop). On AWS a shard can answer empty
   * pages for a moment before new records show: caught up means as far as the Streams API showed.
   */
  async whenCaughtUp(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    const checkEveryMs = Math.min(this.options.pollIntervalMs, 50);
    let marks: Map<string, number> | undefined;
    for (;;) {
      if (this.failure !== undefined) throw this.failure.error;
      if (this.stopRequested) throw new DOMException('The change feed was stopped before it caught up', 'AbortError');
      // Ended without a stop: the stream was disabled and every shard drained.
      if (this.state === 'ended' || this.state === 'stopping') return;
      const coordinator = this.coordinator;
      if (coordinator !== undefined && this.state === 'running') {
        if (marks === undefined) marks = coordinator.emptyReadMarks();
        else if (coordinator.caughtUpSince(marks)) return;
      }
      await sleep(checkEveryMs, options.signal);
    }
  }

  /** A snapshot of the feed and of every shard it has seen, for a health endpoint. */
  status(): ChangeFeedStatus {
    const lease = this.lease;
    return {
      streamArn: this.options.streamArn,
      consumer: this.options.consumer,
      state: this.state,
      lease: lease === undefined || lease.expiresAt === 0 ? undefined : { owner: lease.owner, expiresAt: lease.expiresAt, lost: lease.lost },
      error: this.error,
      shards: this.coordinator?.metrics() ?? [],
    };
  }

  /** The batches; a feed can be iterated once. */
  [Symbol.asyncIterator](): AsyncIterator<ChangeFeedBatch> {
    if (this.iterating) throw new ConfigurationError('A ChangeFeedConsumer can be iterated only once: create a new one to read again');
    this.iterating = true;
    return this.run();
  }

  private async *run(): AsyncGenerator<ChangeFeedBatch, void, undefined> {
    const signal = this.controller.signal;
    const channel = this.channel;
    // Stopping must not wait for the consumer to ask for the next batch: clean up at once.
    const onAbort = () => {
      channel.close();
      void this.shutdown();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    try {
      if (signal.aborted) return;
      this.state = 'starting';
      await this.start(signal);
      if (this.state === 'starting') this.state = 'running';
      for (;;) {
        const next = await channel.take();
        if (next.done) break;
        yield next.value;
      }
    } catch (error) {
      // After stop() every pending call rejects with the abort: that is the end asked for, not a failure.
      if (this.failure === undefined && this.stopRequested) return;
      this.fail(error);
      throw this.failure?.error ?? error;
    } finally {
      await this.shutdown();
    }
  }

  /** Ends the feed with `error` (the first failure wins) and cleans up without waiting for the consumer. */
  private fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = { error };
    this.error = error instanceof Error ? error : new Error(String(error));
    this.state = 'failed';
    log(this.options.logger, 'error', { err: error }, 'change feed failed');
    this.channel.fail(error);
    void this.shutdown();
  }

  /** Stops every reader and loop, then releases the lease; runs once, whoever asks first. */
  private shutdown(): Promise<void> {
    if (this.shutdownDone === undefined) {
      if (this.state !== 'failed') this.state = 'stopping';
      this.shutdownDone = (async () => {
        // Aborting re-enters shutdown() through the abort listener: the promise above is already set.
        await Promise.resolve();
        this.controller.abort();
        await this.coordinator?.settle();
        await this.lease?.release();
        if (this.state !== 'failed') this.state = 'ended';
      })();
    }
    return this.shutdownDone;
  }

  private async start(signal: AbortSignal): Promise<void> {
    const { options, key } = this;
    if (options.lease !== false) {
      this.lease = new FeedLease({ store: options.checkpoints, key, lease: options.lease, backoff: options.backoff, logger: options.logger });
      await this.lease.acquire(signal);
      // A stop during the acquisition may have found nothing to release yet.
      if (signal.aborted) return this.lease.release();
      this.lease.keepAlive(signal).catch((error: unknown) => {
        if (!signal.aborted) this.fail(error);
      });
    }
    const api = new StreamsApi({
      client: options.streamsClient,
      streamArn: options.streamArn,
      reads: new Semaphore(options.maxConcurrentReads),
      backoff: options.backoff,
      signal,
      logger: options.logger,
    });
    const { plan, snapshot, checkpoints } = await prepareStart({
      api,
      store: options.checkpoints,
      key,
      startingPosition: options.startingPosition,
      signal,
    });
    for (const shardId of plan.markFinished) await this.finish(shardId, signal);
    if (signal.aborted) return;
    log(
      options.logger,
      'info',
      { read: plan.read.map((s) => s.shardId), finished: plan.finished.length + plan.markFinished.length },
      'change feed started',
    );
    const readerContext: Omit<ShardReaderContext, 'confirmClosed'> = {
      streamArn: options.streamArn,
      consumer: options.consumer,
      api,
      batchSize: options.batchSize,
      pollIntervalMs: options.pollIntervalMs,
      backoff: options.backoff,
      signal,
      logger: options.logger,
      acknowledgements: (shardId) => this.acknowledgements(shardId),
      finish: (shardId) => this.finish(shardId, signal),
    };
    this.coordinator = new ShardCoordinator({
      api,
      channel: this.channel,
      fail: (error) => this.fail(error),
      signal,
      pollIntervalMs: options.pollIntervalMs,
      describeIntervalMs: options.describeIntervalMs,
      disabledSettleMs: options.disabledSettleMs,
      logger: options.logger,
      onMetrics: options.onMetrics,
      checkpoints,
      readerContext,
    });
    this.coordinator.begin(plan.read, [...plan.finished, ...plan.markFinished], snapshot);
  }

  private acknowledgements(shardId: string): AcknowledgementTarget {
    return {
      checkpoint: (sequenceNumber) => this.options.checkpoints.putCheckpoint(this.key, shardId, sequenceNumber),
      assertLease: () => this.lease?.assertHeld(),
    };
  }

  /** Checkpoints a shard as finished; transient store failures are retried, as the shard can't be re-read cheaply. */
  private async finish(shardId: string, signal: AbortSignal): Promise<void> {
    this.lease?.assertHeld();
    const { checkpoints, backoff, logger } = this.options;
    try {
      await retrying(() => checkpoints.putFinished(this.key, shardId), { backoff, signal, logger, operation: 'putFinished' });
    } catch (error) {
      if (signal.aborted || error instanceof DynafoldError) throw error;
      throw new CheckpointStoreError(`Checkpointing shard ${shardId} as finished failed`, { cause: error });
    }
  }
}

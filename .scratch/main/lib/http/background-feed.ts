import type {
  ChangeFeedBatch,
  ChangeFeedOptions,
  ChangeFeedRecord,
  ChangeFeedSource,
  ChangeFeedStatus,
  FeedProjections,
  RunChangeFeedOptions,
} from '../feed';
import type { ProcessResult } from '../lambda';
import type { AnyEventStream } from '../store';
import { log, type Logger } from '../util';

/** A change feed a service can run: a `ChangeFeedConsumer`, or anything that reads batches and reports a status. */
export interface ServiceFeedConsumer extends ChangeFeedSource {
  status(): ChangeFeedStatus;
}

/**
 * The change feed a service runs in the background: `runChangeFeed`'s options plus the consumer, given
 * as a `ChangeFeedConsumer` or as its options (then `dynafold/feed`, and with it
 * `@aws-sdk/client-dynamodb-streams`, is loaded only when the service starts).
 */
export interface ServiceFeedOptions<
  P extends FeedProjections = FeedProjections,
  St extends Record<string, AnyEventStream> = Record<string, never>,
> extends Omit<RunChangeFeedOptions<P, St>, 'onBatch'> {
  readonly consumer: ServiceFeedConsumer | ChangeFeedOptions;
  /**
   * As `RunChangeFeedOptions.onBatch`. A method, so that the options of a feed with its own projections
   * fit the service's options, which know none of them.
   */
  onBatch?(result: ProcessResult<P, St, ChangeFeedRecord>, batch: ChangeFeedBatch): unknown;
}

/** What a health check reports of the feed: healthy while it starts or runs, with the feed's own status. */
export interface FeedHealth {
  readonly healthy: boolean;
  readonly state: ChangeFeedStatus['state'] | 'not started';
  /** The error that ended the feed or its run, by name and message. */
  readonly error?: { readonly name: string; readonly message: string } | undefined;
  /** The feed's status (lease, shards); `undefined` before it started. */
  readonly status?: Omit<ChangeFeedStatus, 'error'> | undefined;
}

/**
 * Runs `runChangeFeed` in the background of a service: `start()` when the service is ready, `health()`
 * for a health check, `stop()` when it closes (the lease is released, the batches in hand acknowledged).
 * A failed run is logged and reported by `health()`; it never crashes the process.
 */
export class BackgroundFeed {
  private consumer: ServiceFeedConsumer | undefined;
  private running: Promise<void> | undefined;
  private failure: Error | undefined;
  private stopping = false;

  constructor(
    private readonly options: ServiceFeedOptions<FeedProjections, Record<string, AnyEventStream>>,
    private readonly logger: Logger | undefined,
  ) {}

  /** Creates the consumer if needed (loading `dynafold/feed`) and starts reading; idempotent. */
  async start(): Promise<void> {
    if (this.running !== undefined || this.stopping) return;
    const { consumer, ...run } = this.options;
    try {
      // Loaded here, not at the top: a service without a feed never needs the Streams client.
      const feed = await import('../feed');
      this.consumer = isConsumer(consumer) ? consumer : new feed.ChangeFeedConsumer({ logger: this.logger, ...consumer });
      this.running = feed.runChangeFeed(this.consumer, run).catch((error: unknown) => this.failed(error, 'the change feed stopped with an error'));
    } catch (error) {
      // The Streams client not installed, or consumer options it refuses: health() reports it too.
      this.failed(error, 'the change feed could not start');
      throw error;
    }
  }

  private failed(error: unknown, message: string): void {
    this.failure = error instanceof Error ? error : new Error(String(error));
    log(this.logger, 'error', { err: error }, message);
  }

  /** Whether the feed reads, and its status. */
  health(): FeedHealth {
    const status = this.consumer?.status();
    const failure = this.failure ?? status?.error;
    const state = status?.state ?? 'not started';
    return {
      healthy: failure === undefined && (state === 'starting' || state === 'running'),
      state,
      ...(failure === undefined ? {} : { error: { name: failure.name, message: failure.message } }),
      ...(status === undefined ? {} : { status: withoutError(status) }),
    };
  }

  /** Stops the feed and waits for its run to end. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.consumer?.stop();
    await this.running;
  }
}

function isConsumer(consumer: ServiceFeedConsumer | ChangeFeedOptions): consumer is ServiceFeedConsumer {
  return typeof (consumer as Partial<ServiceFeedConsumer>).status === 'function' && Symbol.asyncIterator in consumer;
}

function withoutError(status: ChangeFeedStatus): Omit<ChangeFeedStatus, 'error'> {
  const { error: _error, ...rest } = status;
  return rest;
}

import type { DynamoDBClient, DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { AnyProjection, MultiSourceProjection, Projection } from '../projector';
import type { AnyEventStream } from '../store';
import type { ReadModel } from '../read-model';
import type { DynamoTimers } from '../timers';

/** A change feed the commands look at (`status`, `checkpoints reset`). */
export interface FeedConfig {
  /** The events table whose stream it reads. */
  readonly table: string;
  /** Its consumer name (`ChangeFeedOptions.consumer`). */
  readonly consumer: string;
  /** Its DynamoCheckpointStore table. */
  readonly checkpointTable: string;
}

/** A projection the lifecycle commands run: a `Projection` or a `MultiSourceProjection`. */
export type OperableProjection = AnyProjection &
  Pick<Projection<AnyEventStream, never, unknown>, 'backfill' | 'parkedRows' | 'retryParked' | 'skipParked'> & {
    readonly readModel: ReadModel;
  };

/** A projection a config lists. */
export type ConfigProjection = Projection<never, never, never> | MultiSourceProjection<never, never, never> | OperableProjection;

/** What the commands work on, built by the config's `setup` with the clients the command line made. */
export interface ConfigModel {
  readonly streams?: Readonly<Record<string, AnyEventStream>> | undefined;
  /**
   * The projections, a list: the commands name each by its `name` (`dynafold rebuild order-summaries`), as
   * its spans, metrics and logs do. A record whose keys are not the projections' names is deprecated.
   */
  readonly projections?: ReadonlyArray<ConfigProjection> | Readonly<Record<string, ConfigProjection>> | undefined;
  readonly feeds?: Readonly<Record<string, FeedConfig>> | undefined;
  /** Outbox tables `tables create` makes (the projections' `outbox.table`). */
  readonly outboxTables?: ReadonlyArray<string> | undefined;
  /** The reactions' and workflows' timers, whose due and late ones `status` counts (reactions themselves go in `projections`). */
  readonly timers?: ReadonlyArray<DynamoTimers> | undefined;
}

/** A `dynafold.config.ts`. */
export interface DynafoldConfig {
  /** DynamoDB client settings; `--endpoint`, `--region` and `--profile` override them. */
  readonly dynamodb?: DynamoDBClientConfig | undefined;
  /** Builds the streams, projections and feeds with the client the command line made. */
  readonly setup: (clients: {
    readonly client: DynamoDBClient;
    readonly streamsClient: () => DynamoDBStreamsClient;
  }) => ConfigModel | Promise<ConfigModel>;
}

/**
 * Declares a `dynafold.config.ts` for the `dynafold` command (types only: it returns its argument).
 *
 * @example
 * ```ts
 * export default defineConfig({
 *   dynamodb: { region: 'eu-west-1' },
 *   setup: ({ client }) => ({ streams: { orders: orderStream(client) }, projections: [summaryProjection(client)] }),
 * })
 * ```
 */
export function defineConfig(config: DynafoldConfig): DynafoldConfig {
  return config;
}

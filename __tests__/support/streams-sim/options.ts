import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SimClock } from './clock';

/** Faults the simulation injects, each drawn from the seed per request. */
export interface SimulationFaults {
  /** Share of requests answered with LimitExceededException. */
  readonly throttleChance: number;
  /** Share of requests answered with InternalServerError. */
  readonly failureChance: number;
  /** A fresh iterator answers up to this many empty pages (with a NextShardIterator) before its records. */
  readonly maxEmptyPages: number;
  /** A new shard is left out of DescribeStream for up to this long after it opened. */
  readonly maxListingLagMs: number;
}

/** How the simulated stream is built from DynamoDB Local's. */
export interface SimulationOptions {
  /** A client on DynamoDB Local that reads the real stream (never the simulated one). */
  readonly source: DynamoDBStreamsClient;
  /** The table's stream on DynamoDB Local; the simulated stream has the same ARN. */
  readonly streamArn: string;
  /** Drives every random choice: reshards, shard ids, faults. */
  readonly seed: number;
  /** Open shards at the start. */
  readonly shards?: number;
  /** Chance, per record received, that its shard then rolls over to one child. */
  readonly rolloverChance?: number;
  /** Chance, per record received, that its shard then splits into two children. */
  readonly splitChance?: number;
  /** Splits turn into rollovers beyond this many open shards. */
  readonly maxOpenShards?: number;
  /** Records older than this are trimmed, and closed shards emptied by trimming leave the stream. */
  readonly retentionMs?: number;
  /** Iterators expire this long after they were issued. */
  readonly iteratorLifetimeMs?: number;
  /** DescribeStream returns at most this many shards a page, whatever `Limit` asks. */
  readonly describePageSize?: number;
  readonly faults?: Partial<SimulationFaults>;
  /** Records written to DynamoDB Local are taken in at most this often (a request in between sees the stream as it was). */
  readonly propagationMs?: number;
  /** The clock trimming and expiry follow; tests move it forward. */
  readonly clock?: SimClock;
}

/** The service's figures, which the simulation uses unless told otherwise. */
export const SimulationDefaults = {
  shards: 1,
  rolloverChance: 0,
  splitChance: 0,
  maxOpenShards: 64,
  /** DynamoDB Streams keeps records for 24 hours. */
  retentionMs: 24 * 3_600_000,
  /** An iterator expires 15 minutes after it was returned. */
  iteratorLifetimeMs: 15 * 60_000,
  /** DescribeStream's `Limit` is at most 100. */
  describePageSize: 100,
  /** Each request would otherwise read DynamoDB Local's stream once: 32 busy shards would queue on it. */
  propagationMs: 20,
  faults: { throttleChance: 0, failureChance: 0, maxEmptyPages: 0, maxListingLagMs: 0 },
} as const satisfies Record<string, unknown>;

/** The service's limits on request parameters. */
export const SimulationLimits = {
  maxRecordsPerPage: 1_000,
  maxShardsPerDescribe: 100,
} as const;

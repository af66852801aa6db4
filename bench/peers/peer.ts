import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Summary } from '../support/orders';

/** A failed record, as Lambda's partial batch response names it. */
export interface BatchResponse {
  readonly batchItemFailures: ReadonlyArray<{ itemIdentifier: string }>;
}

/**
 * One event-sourcing library on DynamoDB, driven the way its documentation shows, on the order domain of
 * the tests. Every peer writes to its own tables on the same DynamoDB Local.
 */
export interface Peer {
  readonly name: string;
  /** Its client: every request of the peer goes through it, so the bench meters it. */
  readonly client: DynamoDBClient;
  destroy(): void;
  /** Stream ARN of its events table, for the projection. */
  readonly streamArn: string;
  /** Appends `count` new events to `orderId`, whose head is `expectedVersion` (the writer knows it). */
  append(orderId: string, expectedVersion: number, count: number): Promise<void>;
  /** A command on `orderId`: loads it, decides one event on the state, appends it conditioned on what it loaded. */
  command(orderId: string): Promise<void>;
  /** Appends one event to a contended stream: learns the head, appends, tries again on a conflict. Resolves the conflicts met. */
  appendContended(orderId: string): Promise<number>;
  /** Loads the stream and folds it into the order summary. */
  readonly load: (orderId: string) => Promise<Summary>;
  /** Loads from the latest snapshot (saved first where the library saves them on its own); `undefined` without snapshots. */
  readonly loadWithSnapshot: ((orderId: string) => Promise<Summary>) | undefined;
  /** Makes the snapshot `loadWithSnapshot` starts from, where the library leaves that to the caller. */
  prepareSnapshot(orderId: string): Promise<void>;
  /** A fresh projection of the stream (its own rows or index), for one delivery run. */
  projector(run: string): Promise<Projector>;
}

/** A projection fed Lambda-shaped batches of the peer's stream records. */
export interface Projector {
  /** Where it ends: a read-model row, or (equinox-js here) its index of appends. */
  readonly projectsTo: 'row' | 'index';
  /** Handles a batch of stream records, answering as Lambda's partial batch response. */
  project(batch: DynamoDBRecord[]): Promise<BatchResponse>;
  /** How many of the orders' rows (or index entries) differ from the fold of their stream, given as `expected`. */
  wrong(expected: ReadonlyArray<Summary>): Promise<number>;
}

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ReadModel } from '../../store';
import type { CheckpointStrategy } from './checkpoints';

/**
 * How a projection keeps its rows: the model, where checkpoints live (the kind of row's
 * {@link CheckpointStrategy}), and the optional row features.
 */
export interface RowStore {
  readonly readModel: ReadModel;
  /** A document client on the read model's client. */
  readonly documents: DynamoDBDocumentClient;
  readonly checkpoints: CheckpointStrategy;
  /** Keep a revision, incremented on every write and part of every write's condition. */
  readonly revision: boolean;
  /** Let DynamoDB TTL expire tombstones after this long. */
  readonly tombstoneTtl?: { readonly attribute: string; readonly durationMs: number } | undefined;
}

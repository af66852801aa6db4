import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { keyedTableDefinition } from '../../dynamo';

/**
 * An outbox item's attributes: what the writer puts in a row's transaction and the relay (`dynafold/outbox`)
 * reads back.
 */
export const OutboxLayout = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** On outbox items: the projection's name. The relay keys on it. */
  marker: '_dfOutbox',
  /** On a message stored compressed: its algorithm. */
  encoding: 'enc',
  /** On a message sealed for the subjects whose personal data its event holds: each one's share of its key (see `Layout.personal`). */
  personal: 'pd',
  /** On a message whose event carried a trace context: that context (see `StreamEvent.trace`). */
  traceContext: 'tc',
} as const;

/**
 * The CreateTable input of an outbox table: `pk` + `sk` strings, on-demand, with a NEW_IMAGE stream the
 * relay can run on (from Lambda or the change feed).
 */
export function outboxTableDefinition(tableName: string): CreateTableCommandInput {
  return keyedTableDefinition(tableName, 'NEW_IMAGE');
}

import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { keyedTableDefinition } from '../dynamo';

/**
 * The CreateTable input of an events table: `pk` + `sk` strings, on-demand, with a NEW_AND_OLD_IMAGES
 * stream for projections and the change feed.
 *
 * @example
 * ```ts
 * await client.send(new CreateTableCommand(eventsTableDefinition('events')))
 * ```
 */
export function eventsTableDefinition(tableName: string): CreateTableCommandInput {
  return keyedTableDefinition(tableName, 'NEW_AND_OLD_IMAGES');
}

import type { CreateTableCommandInput, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { keyedTableDefinition } from '../dynamo';
import { ReadModel } from '../read-model';
import { withDueIndex } from '../timers';
import type { TransactionPlan } from './transaction-plan';

/**
 * A reaction's progress in one source instance: its row, keyed by the reaction's name and the instance
 * (`<stream name>#<stream id>`), with the last version whose effects are written (the row's checkpoint).
 */
const progressSchema = z.object({ source: z.string(), version: z.number() });

/** A progress row as stored. */
export type ProgressRow = z.output<typeof progressSchema>;

/** A progress row during a fold: with the effects planned for its next write, which the write carries and never stores. */
export interface ProgressState extends ProgressRow {
  readonly plan?: TransactionPlan | undefined;
}

/**
 * How many progress rows a reaction keeps in a process as it wrote them (a few hundred bytes each), so
 * that the next event of an instance needs no read of its progress first (see `RowMemory`).
 */
export const REMEMBERED_PROGRESS_ROWS = 10_000;

/** The read model of a reaction's progress rows: a model of its own name in the reactions table. */
export function progressModel(client: DynamoDBClient, table: string, reaction: string): ReadModel {
  return new ReadModel({
    client,
    table,
    name: reaction,
    schema: progressSchema,
    key: { pk: { field: 'pk', composite: ['source'] }, sk: { field: 'sk', composite: [] } },
  });
}

/**
 * The CreateTable input of a reactions table: `pk` + `sk` strings, on-demand, with the due-time index of
 * timers. It holds the reactions' and workflows' progress rows (one per source instance each) and their
 * timers; enable DynamoDB TTL on `ttl` so that fired and cancelled timers' records expire.
 *
 * @example
 * ```ts
 * await client.send(new CreateTableCommand(reactionsTableDefinition('reactions')))
 * ```
 */
export function reactionsTableDefinition(tableName: string): CreateTableCommandInput {
  return withDueIndex(keyedTableDefinition(tableName));
}

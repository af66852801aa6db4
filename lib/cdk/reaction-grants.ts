import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { TimerLayout } from '../timers';
import { grantActions } from './grants';
import { Actions } from './permissions';

/** The tables reactions and workflows read and write. */
export interface ReactionTables {
  /** The events table: their sources' streams, their targets' and their workflows' instances. */
  readonly eventsTable: dynamodb.ITable;
  /** The reactions table (a `ReactionsTable`): progress rows and timers. */
  readonly reactionsTable: dynamodb.ITable;
  /** Other events tables their commands and appends target. */
  readonly targetTables?: ReadonlyArray<dynamodb.ITable> | undefined;
  /** The outbox tables their `message` effects write to. */
  readonly outboxTables?: ReadonlyArray<dynamodb.ITable> | undefined;
}

/** The actions reactions and workflows send as their events are delivered, wherever they run (Lambda or the change feed). */
export function grantReaction(grantee: iam.IGrantable, tables: ReactionTables): void {
  grantActions(grantee, Actions.reactionOnEvents, eventTablesOf(tables));
  grantActions(grantee, Actions.reactionOnProgress, [tables.reactionsTable.tableArn]);
  grantActions(
    grantee,
    Actions.projectorOnOutbox,
    (tables.outboxTables ?? []).map((table) => table.tableArn),
  );
}

/** The ARNs of the events tables reactions load and append to. */
export function eventTablesOf(tables: ReactionTables): string[] {
  return [tables.eventsTable, ...(tables.targetTables ?? [])].map((table) => table.tableArn);
}

/** The actions a timer's firing sends (a sweep's, or the function a timer's schedule invokes). */
export function grantTimerFiring(grantee: iam.IGrantable, tables: ReactionTables): void {
  grantActions(grantee, Actions.timersOnDueIndex, [`${tables.reactionsTable.tableArn}/index/${TimerLayout.index}`]);
  grantActions(grantee, Actions.timersOnTable, [tables.reactionsTable.tableArn]);
  grantActions(grantee, Actions.reactionOnEvents, eventTablesOf(tables));
  grantActions(
    grantee,
    Actions.projectorOnOutbox,
    (tables.outboxTables ?? []).map((table) => table.tableArn),
  );
}

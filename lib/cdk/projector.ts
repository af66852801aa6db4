import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ConfigurationError } from '../errors';
import { eventFilterPattern } from '../store';
import { grantActions } from './grants';
import { Actions } from './permissions';
import { StreamMapping, type StreamMappingProps } from './stream-mapping';

/** What a projector function projects, and where. */
export interface ProjectorProps extends StreamMappingProps {
  /** The function running `lambdaHandler` (a NodejsFunction, say). */
  readonly function: lambda.IFunction;
  /** The events table, with its stream. */
  readonly eventsTable: dynamodb.ITable;
  /** The names of the event streams its projections read: only their event INSERTs invoke it. */
  readonly streams: ReadonlyArray<string>;
  /** The tables its projections write rows to. */
  readonly readModelTables: ReadonlyArray<dynamodb.ITable>;
  /** The tables its projections write outbox messages to. */
  readonly outboxTables?: ReadonlyArray<dynamodb.ITable> | undefined;
}

/**
 * A projector on Lambda: its function subscribed to the events table's stream (ReportBatchItemFailures,
 * the filter of `eventFilterPattern`, bisect on error, bounded retries, an OnFailure queue, an alarm on
 * iterator age), with exactly the DynamoDB actions `lambdaHandler` sends.
 *
 * @example
 * ```ts
 * const events = new EventsTable(stack, 'Events')
 * const views = new ReadModelTable(stack, 'Views', { readModels: [OrderSummaries] })
 * new Projector(stack, 'Summaries', { function: fn, eventsTable: events.table, streams: ['Order'], readModelTables: [views.table] })
 * ```
 */
export class Projector extends Construct {
  readonly mapping: StreamMapping;

  constructor(scope: Construct, id: string, props: ProjectorProps) {
    super(scope, id);
    const { function: fn, eventsTable, streams, readModelTables, outboxTables = [], ...mapping } = props;
    requireProjectorProps(id, streams, readModelTables);
    this.mapping = new StreamMapping(this, 'Stream', { function: fn, table: eventsTable, filter: eventFilterPattern(streams) }, mapping);
    grantProjection(fn, { eventsTable, readModelTables, outboxTables });
  }
}

/** Refuses at synth what could never work: a filter that matches nothing, a role that writes no row. */
function requireProjectorProps(id: string, streams: ReadonlyArray<string>, readModelTables: ReadonlyArray<dynamodb.ITable>): void {
  requireStreamNames(id, streams, 'its projections read');
  if (readModelTables.length === 0) {
    throw new ConfigurationError(`${id}: \`readModelTables\` is empty, so the function could write no row; give the tables its projections write.`);
  }
}

/** Refuses stream names no event filter can match: none, or a name that is empty or holds `#`. */
export function requireStreamNames(id: string, streams: ReadonlyArray<string>, reader: string): void {
  if (!Array.isArray(streams) || streams.length === 0)
    throw new ConfigurationError(`${id}: \`streams\` is empty, so the event filter would match no record; name the streams ${reader}.`);
  for (const name of streams) {
    if (typeof name !== 'string' || name === '' || name.includes('#')) {
      throw new ConfigurationError(
        `${id}: stream name ${JSON.stringify(name)} can't name an event stream (a name is a non-empty string without '#'); give the EventStream's \`name\`.`,
      );
    }
  }
}

/** The actions a projection sends wherever it runs (Lambda or the change feed). */
export function grantProjection(
  grantee: iam.IGrantable,
  tables: {
    readonly eventsTable: dynamodb.ITable;
    readonly readModelTables: ReadonlyArray<dynamodb.ITable>;
    readonly outboxTables: ReadonlyArray<dynamodb.ITable>;
  },
): void {
  grantActions(grantee, Actions.projectorOnEvents, [tables.eventsTable.tableArn]);
  grantActions(
    grantee,
    Actions.projectorOnRows,
    tables.readModelTables.map((table) => table.tableArn),
  );
  grantActions(
    grantee,
    Actions.projectorOnOutbox,
    tables.outboxTables.map((table) => table.tableArn),
  );
}

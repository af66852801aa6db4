import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ConfigurationError } from '../errors';
import { grantActions } from './grants';
import { Actions } from './permissions';
import { grantProjection } from './projector';
import { CheckpointTable, type DynafoldTableProps } from './tables';

/** What a change feed service reads and writes. */
export interface ChangeFeedResourcesProps {
  /** The events table, with its stream. */
  readonly eventsTable: dynamodb.ITable;
  /** The tables its projections write rows to. */
  readonly readModelTables?: ReadonlyArray<dynamodb.ITable> | undefined;
  readonly outboxTables?: ReadonlyArray<dynamodb.ITable> | undefined;
  /** Settings of the checkpoint table created for it. */
  readonly checkpointTable?: DynafoldTableProps | undefined;
}

/**
 * What a change feed running as a container service needs (`runChangeFeed` with a DynamoCheckpointStore
 * and projections): the checkpoint table, and `grantTo` for the service's role (an ECS task role, say)
 * with the stream, checkpoint and projection actions. Pass `checkpointTable.tableName` and the stream ARN
 * to the service in its environment.
 */
export class ChangeFeedResources extends Construct {
  readonly checkpointTable: CheckpointTable;
  readonly streamArn: string;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: ChangeFeedResourcesProps,
  ) {
    super(scope, id);
    const streamArn = props.eventsTable.tableStreamArn;
    if (streamArn === undefined)
      throw new ConfigurationError(`${id}: the events table has no stream; give the EventsTable's table (or one with tableStreamArn).`);
    this.streamArn = streamArn;
    this.checkpointTable = new CheckpointTable(this, 'Checkpoints', props.checkpointTable);
  }

  /** Grants the service's role exactly what the feed and its projections send. */
  grantTo(grantee: iam.IGrantable): void {
    grantActions(grantee, Actions.feedOnStream, [this.streamArn]);
    grantActions(grantee, Actions.feedOnCheckpoints, [this.checkpointTable.table.tableArn]);
    grantProjection(grantee, {
      eventsTable: this.props.eventsTable,
      readModelTables: this.props.readModelTables ?? [],
      outboxTables: this.props.outboxTables ?? [],
    });
  }
}

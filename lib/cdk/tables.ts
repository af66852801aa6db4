import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { CheckpointTable as CheckpointTableDefinition } from '../dynamo';
import { outboxTableDefinition } from '../projector';
import { eventsTableDefinition } from '../store';
import { readModelTableDefinition, type ReadModel } from '../read-model';
import { reactionsTableDefinition } from '../reactions';
import { TimerDefaults } from '../timers';

/** Settings every dynafold table takes. */
export interface DynafoldTableProps {
  /** A physical name; CloudFormation generates one when absent. */
  readonly tableName?: string | undefined;
  /** @defaultValue RemovalPolicy.RETAIN: the events are the system's record. */
  readonly removalPolicy?: RemovalPolicy | undefined;
  /** @defaultValue true */
  readonly pointInTimeRecovery?: boolean | undefined;
}

/**
 * A table made from the CreateTable input the library itself uses (one definition for tests, scripts
 * and infrastructure), exposed as an `ITable` for grants.
 */
export abstract class DynafoldTable extends Construct {
  readonly table: dynamodb.ITable;
  readonly cfnTable: dynamodb.CfnTable;

  protected constructor(scope: Construct, id: string, definition: CreateTableCommandInput, props: DynafoldTableProps, timeToLiveAttribute?: string) {
    super(scope, id);
    const stream = definition.StreamSpecification?.StreamViewType;
    this.cfnTable = new dynamodb.CfnTable(this, 'Resource', {
      ...(props.tableName === undefined ? {} : { tableName: props.tableName }),
      keySchema: (definition.KeySchema ?? []).map((key) => ({ attributeName: key.AttributeName as string, keyType: key.KeyType as string })),
      attributeDefinitions: (definition.AttributeDefinitions ?? []).map((attribute) => ({
        attributeName: attribute.AttributeName as string,
        attributeType: attribute.AttributeType as string,
      })),
      billingMode: definition.BillingMode,
      ...(stream === undefined ? {} : { streamSpecification: { streamViewType: stream } }),
      ...(definition.GlobalSecondaryIndexes === undefined
        ? {}
        : {
            globalSecondaryIndexes: definition.GlobalSecondaryIndexes.map((index) => ({
              indexName: index.IndexName as string,
              keySchema: (index.KeySchema ?? []).map((key) => ({ attributeName: key.AttributeName as string, keyType: key.KeyType as string })),
              projection: { projectionType: index.Projection?.ProjectionType ?? 'ALL' },
            })),
          }),
      ...(timeToLiveAttribute === undefined ? {} : { timeToLiveSpecification: { enabled: true, attributeName: timeToLiveAttribute } }),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: props.pointInTimeRecovery ?? true },
    });
    this.cfnTable.applyRemovalPolicy(props.removalPolicy ?? RemovalPolicy.RETAIN);
    this.table = dynamodb.Table.fromTableAttributes(this, 'Table', {
      tableArn: this.cfnTable.attrArn,
      ...(stream === undefined ? {} : { tableStreamArn: this.cfnTable.attrStreamArn }),
      ...(definition.GlobalSecondaryIndexes === undefined
        ? {}
        : { globalIndexes: definition.GlobalSecondaryIndexes.map((index) => index.IndexName as string) }),
    });
  }

  get tableName(): string {
    return this.cfnTable.ref;
  }
}

/** Settings of an {@link EventsTable}. */
export interface EventsTableProps extends DynafoldTableProps {
  /** The attribute DynamoDB TTL expires idempotency sentinels on: the streams' `idempotencyTtl.attribute` (`ttl`), if they set one. */
  readonly timeToLiveAttribute?: string | undefined;
}

/** The events table: `pk` + `sk`, on demand, with the NEW_AND_OLD_IMAGES stream projections and the feed read. */
export class EventsTable extends DynafoldTable {
  constructor(scope: Construct, id: string, props: EventsTableProps = {}) {
    super(scope, id, eventsTableDefinition('events'), props, props.timeToLiveAttribute);
  }
}

/** Settings of a {@link ReadModelTable}. */
export interface ReadModelTableProps extends DynafoldTableProps {
  readonly readModels: ReadonlyArray<ReadModel>;
  /** The attribute DynamoDB TTL expires rows on: the projections' `tombstoneTtl.attribute` (`ttl`), if they set one. */
  readonly timeToLiveAttribute?: string | undefined;
}

/** A table holding these read models: their primary key and every index they declare. */
export class ReadModelTable extends DynafoldTable {
  constructor(scope: Construct, id: string, props: ReadModelTableProps) {
    // Rows can be rebuilt from the events: they are not retained by default.
    super(
      scope,
      id,
      readModelTableDefinition('views', props.readModels),
      { removalPolicy: RemovalPolicy.DESTROY, ...props },
      props.timeToLiveAttribute,
    );
  }
}

/** An outbox table, with the NEW_IMAGE stream its relay runs on. */
export class OutboxTable extends DynafoldTable {
  constructor(scope: Construct, id: string, props: DynafoldTableProps = {}) {
    super(scope, id, outboxTableDefinition('outbox'), props);
  }
}

/** A DynamoCheckpointStore's table, with finished shards' checkpoints expiring on `ttl`. */
export class CheckpointTable extends DynafoldTable {
  constructor(scope: Construct, id: string, props: DynafoldTableProps = {}) {
    super(
      scope,
      id,
      CheckpointTableDefinition.definition('checkpoints'),
      { removalPolicy: RemovalPolicy.DESTROY, ...props },
      CheckpointTableDefinition.ttlAttribute,
    );
  }
}

/**
 * A reactions table: reactions' and workflows' progress rows and their timers' items, with the timers'
 * due-time index and DynamoDB TTL on `ttl` (fired and cancelled timers' records expire). Retained by
 * default: the progress rows record which events' effects were written, so a table rebuilt empty would
 * write every event's effects again.
 */
export class ReactionsTable extends DynafoldTable {
  constructor(scope: Construct, id: string, props: DynafoldTableProps = {}) {
    super(scope, id, reactionsTableDefinition('reactions'), props, TimerDefaults.ttlAttribute);
  }
}

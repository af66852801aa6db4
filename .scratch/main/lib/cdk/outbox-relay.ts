import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { grantActions } from './grants';
import { Actions } from './permissions';
import { StreamMapping, type StreamMappingProps } from './stream-mapping';

/** Settings of an {@link OutboxRelayFunction}. */
export interface OutboxRelayFunctionProps extends StreamMappingProps {
  /** The function running `OutboxRelay.processBatch`; what `publish` needs (a bus, a queue) is granted by you. */
  readonly function: lambda.IFunction;
  /** The outbox table, with its stream. */
  readonly outboxTable: dynamodb.ITable;
}

/**
 * An outbox relay on Lambda: its function subscribed to the outbox table's stream (message INSERTs only),
 * one relay per shard as the mapping runs it, with the DynamoDB actions the relay sends.
 */
export class OutboxRelayFunction extends Construct {
  readonly mapping: StreamMapping;

  constructor(scope: Construct, id: string, props: OutboxRelayFunctionProps) {
    super(scope, id);
    const { function: fn, outboxTable, ...mapping } = props;
    this.mapping = new StreamMapping(this, 'Stream', { function: fn, table: outboxTable, filter: { eventName: ['INSERT'] } }, mapping);
    grantActions(fn, Actions.relayOnOutbox, [outboxTable.tableArn]);
  }
}

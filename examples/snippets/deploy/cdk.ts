import { App, Stack } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { OrderSummaries } from '../store/model';

export function orderStack(relayFn: IFunction, taskRole: IRole): Stack {
  const stack = new Stack(new App(), 'Orders');
  // #region cdk
  // Pk/sk, on demand, NEW_AND_OLD_IMAGES stream, retained
  const events = new EventsTable(stack, 'Events');
  // ({ timeToLiveAttribute: 'ttl' } with idempotencyTtl)
  const views = new ReadModelTable(stack, 'Views', {
    readModels: [OrderSummaries],
  }); // key and indexes from the read models
  const outbox = new OutboxTable(stack, 'Outbox');

  const fn = new NodejsFunction(stack, 'Project', {
    entry: 'src/project.ts',
    environment: { VIEWS_TABLE: views.tableName },
  });
  new Projector(stack, 'Summaries', {
    function: fn,
    eventsTable: events.table,
    streams: ['Order'],
    readModelTables: [views.table],
    outboxTables: [outbox.table],
  });
  new OutboxRelayFunction(stack, 'Relay', {
    function: relayFn,
    outboxTable: outbox.table,
  });

  const feed = new ChangeFeedResources(stack, 'Feed', {
    eventsTable: events.table,
    readModelTables: [views.table],
  });
  feed.grantTo(taskRole); // a container service running runChangeFeed
  // #endregion cdk
  return stack;
}

// #region imports
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import {
  ChangeFeedResources,
  EventsTable,
  OutboxRelayFunction,
  OutboxTable,
  Projector,
  ReadModelTable,
} from 'dynafold/cdk';
// #endregion imports

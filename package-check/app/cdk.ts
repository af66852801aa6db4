/**
 * `dynafold/cdk` type-checked in a fresh app against the packed package and the app's aws-cdk-lib, as a
 * strict app does but for `exactOptionalPropertyTypes`, which aws-cdk-lib's own declarations fail (with
 * `skipLibCheck: false`, a CDK app cannot turn it on whatever it imports): by the node10 check, whose
 * declarations (`.d.cts`) nodenext checks with it.
 */
import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { EventsTable, Projector, ReadModelTable } from 'dynafold/cdk';
import { summaries } from './types';

export function infrastructure(): Stack {
  const stack = new Stack(new App(), 'App');
  const fn = new lambda.Function(stack, 'Fn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] })'),
  });
  const events = new EventsTable(stack, 'Events');
  const views = new ReadModelTable(stack, 'Views', { readModels: [summaries] });
  new Projector(stack, 'Summaries', { function: fn, eventsTable: events.table, streams: ['Order'], readModelTables: [views.table] });
  return stack;
}

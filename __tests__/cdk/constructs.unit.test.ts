/**
 * dynafold/cdk, synthesised offline with aws-cdk-lib/assertions: the tables come from the library's own
 * definitions, the mappings carry the settings dynafold needs, and each role gets exactly its actions.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { ConfigurationError } from 'dynafold';
import { eventFilterPattern } from 'dynafold/lambda';
import { Actions, ChangeFeedResources, EventsTable, OutboxRelayFunction, OutboxTable, Projector, ReadModelTable } from 'dynafold/cdk';
import { orderSummaries } from '../support/order-projection';

const client = new DynamoDBClient({ region: 'eu-west-1' });
afterAll(() => client.destroy());

function newStack(): Stack {
  return new Stack(new App(), 'Test', { env: { account: '111111111111', region: 'eu-west-1' } });
}

/** The stack's template, synthesised through its app (Template.fromStack leaves a handle that keeps a jest worker alive). */
function templateOf(stack: Stack): Template {
  const app = stack.node.root as App;
  return Template.fromJSON(app.synth().getStackByName(stack.stackName).template as Record<string, unknown>);
}

function stackWithFunction(): { stack: Stack; fn: lambda.Function } {
  const stack = newStack();
  const fn = new lambda.Function(stack, 'Fn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] })'),
  });
  return { stack, fn };
}

type Statement = { Action: string | string[]; Resource: unknown };

/** Every action the template's policies grant, with the resources it is granted on. */
function grantedActions(template: Template): Map<string, unknown[]> {
  const granted = new Map<string, unknown[]>();
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
    for (const statement of (policy as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement) {
      for (const action of [statement.Action].flat()) granted.set(action, [...(granted.get(action) ?? []), statement.Resource]);
    }
  }
  return granted;
}

const dynamoActions = (granted: Map<string, unknown[]>) => [...granted.keys()].filter((action) => action.startsWith('dynamodb:')).sort();

describe('tables', () => {
  it('builds the events table from eventsTableDefinition: pk/sk, on demand, NEW_AND_OLD_IMAGES stream, retained', () => {
    const stack = newStack();
    new EventsTable(stack, 'Events');
    const template = templateOf(stack);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      },
    });
  });

  it('enables TTL on the events table when its streams expire idempotency sentinels', () => {
    const stack = newStack();
    new EventsTable(stack, 'Events', { tableName: 'events', timeToLiveAttribute: 'ttl' });
    templateOf(stack).hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'events',
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    });
  });

  it('builds a read-model table with the indexes its read models declare', () => {
    const stack = newStack();
    new ReadModelTable(stack, 'Views', { readModels: [orderSummaries(client, 'views')], tableName: 'views', timeToLiveAttribute: 'ttl' });
    templateOf(stack).hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'views',
      GlobalSecondaryIndexes: Match.arrayWith([Match.objectLike({ IndexName: 'gsi1' })]),
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    });
  });
});

describe('Projector', () => {
  it('subscribes the function with ReportBatchItemFailures, the event filter, bisect, retries and an OnFailure queue', () => {
    const { stack, fn } = stackWithFunction();
    const events = new EventsTable(stack, 'Events');
    const views = new ReadModelTable(stack, 'Views', { readModels: [orderSummaries(client, 'views')] });
    new Projector(stack, 'Summaries', { function: fn, eventsTable: events.table, streams: ['Order', 'Customer'], readModelTables: [views.table] });
    const template = templateOf(stack);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify(eventFilterPattern(['Order', 'Customer'])) }] },
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 100,
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
    template.resourceCountIs('AWS::SQS::Queue', 1);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Threshold: 60_000,
      EvaluationPeriods: 5,
    });
  });

  it('grants exactly the actions lambdaHandler sends, each on its table', () => {
    const { stack, fn } = stackWithFunction();
    const events = new EventsTable(stack, 'Events');
    const views = new ReadModelTable(stack, 'Views', { readModels: [orderSummaries(client, 'views')] });
    const outbox = new OutboxTable(stack, 'Outbox');
    new Projector(stack, 'Summaries', {
      function: fn,
      eventsTable: events.table,
      streams: ['Order'],
      readModelTables: [views.table],
      outboxTables: [outbox.table],
    });
    const granted = grantedActions(templateOf(stack));
    const stream = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'];
    expect(dynamoActions(granted)).toEqual(
      [...new Set([...Actions.projectorOnEvents, ...Actions.projectorOnRows, ...Actions.projectorOnOutbox, ...stream])].sort(),
    );
    expect(JSON.stringify(granted.get('dynamodb:Query'))).toMatch(/Events/);
    expect(JSON.stringify(granted.get('dynamodb:Query'))).not.toMatch(/Views|Outbox/);
    expect(JSON.stringify(granted.get('dynamodb:BatchGetItem'))).toMatch(/Views/);
    expect(JSON.stringify(granted.get('dynamodb:BatchGetItem'))).not.toMatch(/Events|Outbox/);
    expect(JSON.stringify(granted.get('dynamodb:PutItem'))).not.toMatch(/Events/);
    expect([...granted.keys()].some((action) => action.endsWith('*'))).toBe(false);
  });

  it('takes the mapping settings, and can go without an alarm', () => {
    const { stack, fn } = stackWithFunction();
    const events = new EventsTable(stack, 'Events');
    const views = new ReadModelTable(stack, 'Views', { readModels: [orderSummaries(client, 'views')] });
    new Projector(stack, 'P', {
      function: fn,
      eventsTable: events.table,
      streams: ['Order'],
      readModelTables: [views.table],
      retryAttempts: -1,
      maxRecordAge: Duration.hours(6),
      parallelizationFactor: 4,
      iteratorAgeAlarm: false,
    });
    const template = templateOf(stack);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      MaximumRetryAttempts: Match.absent(),
      MaximumRecordAgeInSeconds: 6 * 3600,
      ParallelizationFactor: 4,
    });
    template.resourceCountIs('AWS::CloudWatch::Alarm', 0);
  });

  it('refuses a table without a stream with a ConfigurationError', () => {
    const { stack, fn } = stackWithFunction();
    const table = dynamodb.Table.fromTableName(stack, 'NoStream', 'events');
    const views = new ReadModelTable(stack, 'Views', { readModels: [orderSummaries(client, 'views')] });
    expect(() => new Projector(stack, 'P', { function: fn, eventsTable: table, streams: ['Order'], readModelTables: [views.table] })).toThrow(
      /has no stream/,
    );
  });

  it('refuses at synth what could never work: no streams, a stream name that is empty or holds #, no read-model tables', () => {
    const { stack, fn } = stackWithFunction();
    const events = new EventsTable(stack, 'Events');
    const views = new ReadModelTable(stack, 'Views', { readModels: [orderSummaries(client, 'views')] });
    const projector = (id: string, streams: string[], readModelTables: dynamodb.ITable[]) => () =>
      new Projector(stack, id, { function: fn, eventsTable: events.table, streams, readModelTables });
    expect(projector('NoStreams', [], [views.table])).toThrow(ConfigurationError);
    expect(projector('NoStreamsAgain', [], [views.table])).toThrow(/`streams` is empty/);
    expect(projector('Empty', [''], [views.table])).toThrow(/stream name "" can't name an event stream/);
    expect(projector('Hash', ['Order#1'], [views.table])).toThrow(/stream name "Order#1"/);
    expect(projector('NoRows', ['Order'], [])).toThrow(/`readModelTables` is empty/);
  });
});

describe('OutboxRelayFunction', () => {
  it("subscribes the relay to the outbox's INSERTs with Query and DeleteItem on the outbox only", () => {
    const { stack, fn } = stackWithFunction();
    const outbox = new OutboxTable(stack, 'Outbox');
    new OutboxRelayFunction(stack, 'Relay', { function: fn, outboxTable: outbox.table });
    const template = templateOf(stack);
    template.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'] }) }] },
    });
    expect(dynamoActions(grantedActions(template))).toEqual(
      [
        'dynamodb:DeleteItem',
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
        'dynamodb:Query',
      ].sort(),
    );
  });
});

describe('ChangeFeedResources', () => {
  it('creates the checkpoint table (TTL on ttl) and grants a service role the stream, checkpoint and projection actions', () => {
    const stack = newStack();
    const events = new EventsTable(stack, 'Events');
    const views = new ReadModelTable(stack, 'Views', { readModels: [orderSummaries(client, 'views')] });
    const feed = new ChangeFeedResources(stack, 'Feed', { eventsTable: events.table, readModelTables: [views.table] });
    const role = new iam.Role(stack, 'TaskRole', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') });
    feed.grantTo(role);
    const template = templateOf(stack);
    template.hasResourceProperties('AWS::DynamoDB::Table', { TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true } });
    const granted = grantedActions(template);
    expect(dynamoActions(granted)).toEqual(
      [...new Set([...Actions.feedOnStream, ...Actions.feedOnCheckpoints, ...Actions.projectorOnEvents, ...Actions.projectorOnRows])].sort(),
    );
    expect(JSON.stringify(granted.get('dynamodb:GetRecords'))).toMatch(/StreamArn/);
    expect(JSON.stringify(granted.get('dynamodb:BatchWriteItem'))).toMatch(/Checkpoints/);
  });
});

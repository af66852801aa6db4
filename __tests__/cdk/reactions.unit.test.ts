/**
 * dynafold/cdk's reaction constructs, synthesised offline with aws-cdk-lib/assertions: the reactions table
 * comes from reactionsTableDefinition, the reaction function is mapped as a projector is, the timer sweep
 * runs on a rule, the Scheduler gets its group and role, and each role gets exactly its actions.
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { ConfigurationError } from 'dynafold';
import { eventFilterPattern } from 'dynafold/lambda';
import { reactionsTableDefinition } from 'dynafold/reactions';
import { Actions, EventsTable, OutboxTable, ReactionFunction, ReactionsTable, TimerSchedules, TimerSweep } from 'dynafold/cdk';

/** The stack's template, synthesised through its app (Template.fromStack leaves a handle that keeps a jest worker alive). */
function templateOf(stack: Stack): Template {
  const app = stack.node.root as App;
  return Template.fromJSON(app.synth().getStackByName(stack.stackName).template as Record<string, unknown>);
}

function newFunction(stack: Stack, id: string): lambda.Function {
  return new lambda.Function(stack, id, {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] })'),
  });
}

function newApp() {
  const stack = new Stack(new App(), 'Test', { env: { account: '111111111111', region: 'eu-west-1' } });
  const events = new EventsTable(stack, 'Events');
  const reactions = new ReactionsTable(stack, 'Reactions');
  const outbox = new OutboxTable(stack, 'Outbox');
  return { stack, tables: { eventsTable: events.table, reactionsTable: reactions.table, outboxTables: [outbox.table] } };
}

type Statement = { Action: string | string[]; Resource: unknown };

/** Every action each function's role is granted, with the resources: role logical id prefix → action → resources. */
function grantsOf(template: Template, role: string): Map<string, string> {
  const granted = new Map<string, string>();
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
    const { PolicyDocument, Roles } = (policy as { Properties: { PolicyDocument: { Statement: Statement[] }; Roles: unknown } }).Properties;
    if (!JSON.stringify(Roles).includes(role)) continue;
    for (const statement of PolicyDocument.Statement) {
      for (const action of [statement.Action].flat()) granted.set(action, `${granted.get(action) ?? ''}${JSON.stringify(statement.Resource)}`);
    }
  }
  return granted;
}

const actionsOf = (granted: Map<string, string>, prefix: string) => [...granted.keys()].filter((action) => action.startsWith(prefix)).sort();
const sorted = (...lists: ReadonlyArray<ReadonlyArray<string>>) => [...new Set(lists.flat())].sort();

test('ReactionsTable: pk/sk with the due-time index of reactionsTableDefinition, TTL on ttl, retained', () => {
  const { stack } = newApp();
  const definition = reactionsTableDefinition('reactions');
  templateOf(stack).hasResource('AWS::DynamoDB::Table', {
    DeletionPolicy: 'Retain',
    Properties: {
      KeySchema: definition.KeySchema,
      AttributeDefinitions: definition.AttributeDefinitions,
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: 'dueTimers', KeySchema: definition.GlobalSecondaryIndexes?.[0]?.KeySchema })],
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      BillingMode: 'PAY_PER_REQUEST',
    },
  });
});

test("ReactionFunction: mapped to its source streams' event INSERTs as a projector is, with exactly the actions reactions send", () => {
  const { stack, tables } = newApp();
  const fn = newFunction(stack, 'CheckoutFn');
  new ReactionFunction(stack, 'Checkout', { function: fn, ...tables, streams: ['Order', 'Payment'], parallelizationFactor: 10 });
  const template = templateOf(stack);
  template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    FilterCriteria: { Filters: [{ Pattern: JSON.stringify(eventFilterPattern(['Order', 'Payment'])) }] },
    BisectBatchOnFunctionError: true,
    ParallelizationFactor: 10,
    DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
  });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'IteratorAge' });
  const granted = grantsOf(template, 'CheckoutFn');
  const stream = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'];
  expect(actionsOf(granted, 'dynamodb:')).toEqual(sorted(Actions.reactionOnEvents, Actions.reactionOnProgress, stream));
  expect(granted.get('dynamodb:Query')).toMatch(/Events/);
  expect(granted.get('dynamodb:Query')).not.toMatch(/Reactions|Outbox/);
  expect(granted.get('dynamodb:BatchGetItem')).toMatch(/Reactions/);
  expect(granted.get('dynamodb:BatchGetItem')).not.toMatch(/Events/);
  expect(granted.get('dynamodb:PutItem')).toMatch(/Events.*Reactions.*Outbox/);
  expect(actionsOf(granted, 'scheduler:')).toEqual([]);
  expect([...granted.keys()].some((action) => action.endsWith('*'))).toBe(false);
});

test('ReactionFunction refuses at synth a filter that could match nothing', () => {
  const { stack, tables } = newApp();
  const fn = newFunction(stack, 'Fn');
  expect(() => new ReactionFunction(stack, 'None', { function: fn, ...tables, streams: [] })).toThrow(ConfigurationError);
  expect(() => new ReactionFunction(stack, 'Hash', { function: fn, ...tables, streams: ['Order#1'] })).toThrow(/stream name "Order#1"/);
});

test('TimerSweep: a rule every minute invokes the sweep, which queries the due-time index and fires timers with their effects', () => {
  const { stack, tables } = newApp();
  const fn = newFunction(stack, 'SweepFn');
  new TimerSweep(stack, 'Timers', { function: fn, ...tables });
  const template = templateOf(stack);
  template.hasResourceProperties('AWS::Events::Rule', {
    ScheduleExpression: 'rate(1 minute)',
    Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('SweepFn'), 'Arn'] } })],
  });
  template.hasResourceProperties('AWS::Lambda::Permission', { Action: 'lambda:InvokeFunction', Principal: 'events.amazonaws.com' });
  const granted = grantsOf(template, 'SweepFn');
  expect(actionsOf(granted, 'dynamodb:')).toEqual(sorted(Actions.timersOnDueIndex, Actions.timersOnTable, Actions.reactionOnEvents));
  expect(granted.get('dynamodb:Query')).toMatch(/\/index\/dueTimers/);
  expect(granted.get('dynamodb:UpdateItem')).toMatch(/Reactions/);
  expect(granted.get('dynamodb:UpdateItem')).not.toMatch(/Events/);
  expect([...granted.keys()].some((action) => action.endsWith('*'))).toBe(false);
});

test('TimerSweep takes its interval', () => {
  const { stack, tables } = newApp();
  new TimerSweep(stack, 'Timers', { function: newFunction(stack, 'SweepFn'), ...tables, every: Duration.minutes(5) });
  templateOf(stack).hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)' });
});

test('TimerSchedules: the group, a role Scheduler assumes to invoke the timer function, and the schedule actions for whoever schedules', () => {
  const { stack, tables } = newApp();
  const timerFn = newFunction(stack, 'TimerFn');
  const reactionFn = newFunction(stack, 'ReactionFn');
  const sweepFn = newFunction(stack, 'SweepFn');
  const schedules = new TimerSchedules(stack, 'Wakeups', { function: timerFn, ...tables, groupName: 'checkout-timers' });
  new ReactionFunction(stack, 'Checkout', { function: reactionFn, ...tables, streams: ['Order'], schedules });
  new TimerSweep(stack, 'Timers', { function: sweepFn, ...tables, schedules });
  const template = templateOf(stack);
  template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'checkout-timers' });
  template.hasResourceProperties('AWS::IAM::Role', {
    AssumeRolePolicyDocument: {
      Statement: [
        Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': '111111111111' } } }),
      ],
    },
  });
  const invoke = grantsOf(template, 'WakeupsInvoke');
  expect([...invoke.keys()]).toEqual(['lambda:InvokeFunction']);
  expect(invoke.get('lambda:InvokeFunction')).toMatch(/TimerFn/);
  for (const fn of ['TimerFn', 'ReactionFn', 'SweepFn']) {
    const granted = grantsOf(template, fn);
    expect(actionsOf(granted, 'scheduler:')).toEqual([...Actions.schedulesInGroup].sort());
    expect(granted.get('scheduler:CreateSchedule')).toMatch(/:schedule\/.*\/\*/);
    expect(granted.get('iam:PassRole')).toMatch(/WakeupsInvoke/);
  }
  expect(actionsOf(grantsOf(template, 'TimerFn'), 'dynamodb:')).toEqual(
    sorted(Actions.timersOnDueIndex, Actions.timersOnTable, Actions.reactionOnEvents),
  );
  expect(schedules.groupName).toEqual(expect.any(String));
});

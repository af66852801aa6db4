/**
 * The SAM template, the Pipe and the Terraform module in examples/deploy parse, and carry what a dynafold
 * projector needs: the event filter of eventFilterPattern, ReportBatchItemFailures, bisect, an OnFailure
 * destination, the tables as the library defines them and exactly the granted actions; and the same of a
 * workflow's reaction function, its reactions table, its timer sweep and EventBridge Scheduler's resources.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseHcl } from '@cdktf/hcl2json';
import { eventsTableDefinition } from 'dynafold';
import { eventFilterPattern } from 'dynafold/lambda';
import { Actions } from 'dynafold/cdk';
import { reactionsTableDefinition } from 'dynafold/reactions';
import { parse as parseYaml } from 'yaml';

const deploy = join(__dirname, '..', '..', 'examples', 'deploy');
const read = (file: string) => readFileSync(join(deploy, file), 'utf8');
const orderFilter = JSON.stringify(eventFilterPattern(['Order']));
const events = eventsTableDefinition('events');
const reactions = reactionsTableDefinition('reactions');
const workflowFilter = JSON.stringify(eventFilterPattern(['Order', 'Payment']));
const schedules = [...Actions.schedulesInGroup];

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('SAM template', () => {
  const template = parseYaml(read('template.yaml')) as { Resources: Resources };
  const { EventsTable, ProjectorFunction } = template.Resources;

  it('declares the events table as eventsTableDefinition does', () => {
    expect(EventsTable?.Properties['KeySchema']).toEqual(events.KeySchema);
    expect(EventsTable?.Properties['AttributeDefinitions']).toEqual(events.AttributeDefinitions);
    expect(EventsTable?.Properties['StreamSpecification']).toEqual({ StreamViewType: events.StreamSpecification?.StreamViewType });
  });

  it("subscribes the function with the settings dynafold needs and the stream's event filter", () => {
    const source = ProjectorFunction?.Properties['Events']['EventsStream'];
    expect(source.Type).toBe('DynamoDB');
    expect(source.Properties).toMatchObject({
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      StartingPosition: 'TRIM_HORIZON',
      DestinationConfig: { OnFailure: { Type: 'SQS', Destination: { 'Fn::GetAtt': ['OnFailureQueue', 'Arn'] } } },
    });
    const pattern = source.Properties.FilterCriteria.Filters[0].Pattern['Fn::Sub'] as string;
    expect(pattern.replace('${Streams}', 'Order')).toBe(orderFilter);
  });

  it('grants exactly what lambdaHandler sends', () => {
    const statements = ProjectorFunction?.Properties['Policies'][0].Statement as Array<{ Action: string[]; Resource: unknown }>;
    expect(statements).toEqual([
      { Effect: 'Allow', Action: [...Actions.projectorOnEvents], Resource: { 'Fn::GetAtt': ['EventsTable', 'Arn'] } },
      { Effect: 'Allow', Action: [...Actions.projectorOnRows], Resource: { 'Fn::GetAtt': ['ViewsTable', 'Arn'] } },
    ]);
  });

  it('alarms on iterator age', () => {
    expect(template.Resources['IteratorAgeAlarm']?.Properties).toMatchObject({ MetricName: 'IteratorAge', Statistic: 'Maximum', Threshold: 60000 });
  });
});

describe('SAM template: a workflow', () => {
  const template = parseYaml(read('template.yaml')) as { Resources: Resources; Conditions: Record<string, unknown> };
  const { ReactionsTable, ReactionFunction, TimerSweepFunction, TimerFunction, SchedulerInvokeRole, TimerScheduleGroup } = template.Resources;
  type Statement = { Action: string[]; Resource: unknown };
  const statementsOf = (fn: Resources[string] | undefined, index = 0) => fn?.Properties['Policies'][index].Statement as Statement[];
  /** The statements a function gets with UseScheduler=true, from the policy under its Fn::If. */
  const schedulingOf = (fn: Resources[string] | undefined) =>
    (fn?.Properties['Policies'] as Array<Record<string, any>>).find((policy) => 'Fn::If' in policy)?.['Fn::If'][1].Statement as Statement[]; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('declares the reactions table as reactionsTableDefinition does, with TTL on ttl, retained', () => {
    expect(ReactionsTable?.Properties['KeySchema']).toEqual(reactions.KeySchema);
    expect(ReactionsTable?.Properties['AttributeDefinitions']).toEqual(reactions.AttributeDefinitions);
    expect(ReactionsTable?.Properties['GlobalSecondaryIndexes']).toEqual(reactions.GlobalSecondaryIndexes);
    expect(ReactionsTable?.Properties['TimeToLiveSpecification']).toEqual({ AttributeName: 'ttl', Enabled: true });
    expect((ReactionsTable as unknown as { DeletionPolicy: string }).DeletionPolicy).toBe('Retain');
  });

  it("maps the reaction function to the workflow's inputs as a projector is, and grants exactly what reactions send", () => {
    const source = ReactionFunction?.Properties['Events']['EventsStream'];
    expect(source.Properties).toMatchObject({
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      StartingPosition: 'TRIM_HORIZON',
      DestinationConfig: { OnFailure: { Type: 'SQS' } },
    });
    expect(source.Properties.FilterCriteria.Filters[0].Pattern).toBe(workflowFilter);
    expect(statementsOf(ReactionFunction)).toEqual([
      { Effect: 'Allow', Action: [...Actions.reactionOnEvents], Resource: { 'Fn::GetAtt': ['EventsTable', 'Arn'] } },
      { Effect: 'Allow', Action: [...Actions.reactionOnProgress], Resource: { 'Fn::GetAtt': ['ReactionsTable', 'Arn'] } },
    ]);
    expect(template.Resources['ReactionIteratorAgeAlarm']?.Properties).toMatchObject({ MetricName: 'IteratorAge' });
  });

  it('runs the timer sweep every minute with exactly what a firing sends', () => {
    expect(TimerSweepFunction?.Properties['Events']['EveryMinute']).toEqual({ Type: 'Schedule', Properties: { Schedule: 'rate(1 minute)' } });
    expect(statementsOf(TimerSweepFunction)).toEqual([
      { Effect: 'Allow', Action: [...Actions.timersOnDueIndex], Resource: { 'Fn::Sub': '${ReactionsTable.Arn}/index/dueTimers' } },
      { Effect: 'Allow', Action: [...Actions.timersOnTable], Resource: { 'Fn::GetAtt': ['ReactionsTable', 'Arn'] } },
      { Effect: 'Allow', Action: [...Actions.reactionOnEvents], Resource: { 'Fn::GetAtt': ['EventsTable', 'Arn'] } },
    ]);
  });

  it('with UseScheduler: the group, a role Scheduler assumes to invoke the timer function, and the schedule actions for whoever schedules', () => {
    expect(template.Conditions['WithScheduler']).toBeDefined();
    for (const resource of [TimerScheduleGroup, SchedulerInvokeRole, TimerFunction]) expect(resource).toMatchObject({ Condition: 'WithScheduler' });
    expect(TimerScheduleGroup?.Type).toBe('AWS::Scheduler::ScheduleGroup');
    expect(SchedulerInvokeRole?.Properties['AssumeRolePolicyDocument'].Statement[0].Principal).toEqual({ Service: 'scheduler.amazonaws.com' });
    const invoke = SchedulerInvokeRole?.Properties['Policies'][0].PolicyDocument.Statement[0];
    expect(invoke.Action).toBe('lambda:InvokeFunction');
    expect(invoke.Resource['Fn::Sub']).toMatch(/function:\$\{AWS::StackName\}-timer-wakeup$/);
    expect(TimerFunction?.Properties['FunctionName']).toEqual({ 'Fn::Sub': '${AWS::StackName}-timer-wakeup' });
    const passRole = { Effect: 'Allow', Action: ['iam:PassRole'], Resource: { 'Fn::GetAtt': ['SchedulerInvokeRole', 'Arn'] } };
    for (const statements of [schedulingOf(ReactionFunction), schedulingOf(TimerSweepFunction), statementsOf(TimerFunction).slice(3)]) {
      expect(statements).toEqual([
        { Effect: 'Allow', Action: schedules, Resource: { 'Fn::Sub': expect.stringMatching(/:schedule\/\$\{TimerScheduleGroup\}\/\*$/) } },
        passRole,
      ]);
    }
    expect(statementsOf(TimerFunction).slice(0, 3)).toEqual(statementsOf(TimerSweepFunction));
  });
});

describe('EventBridge Pipe', () => {
  it("filters the stream to the stream's event INSERTs, bisects partial failures and has a dead-letter queue", () => {
    const pipe = (parseYaml(read('pipe.yaml')) as { Resources: Resources }).Resources['ProjectorPipe'];
    expect(pipe?.Type).toBe('AWS::Pipes::Pipe');
    expect(pipe?.Properties['SourceParameters'].FilterCriteria.Filters[0].Pattern).toBe(orderFilter);
    expect(pipe?.Properties['SourceParameters'].DynamoDBStreamParameters).toMatchObject({
      OnPartialBatchItemFailure: 'AUTOMATIC_BISECT',
      DeadLetterConfig: { Arn: { Ref: 'OnFailureQueueArn' } },
    });
    expect(pipe?.Properties['TargetParameters'].LambdaFunctionParameters.InvocationType).toBe('REQUEST_RESPONSE');
  });
});

describe('Terraform module', () => {
  it('parses, and its mapping, tables and policy carry what dynafold needs', async () => {
    const main = (await parseHcl('main.tf', read('terraform/main.tf'))) as { resource: Record<string, Record<string, Array<Record<string, any>>>> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    await expect(parseHcl('variables.tf', read('terraform/variables.tf'))).resolves.toHaveProperty('variable.streams');
    const mapping = main.resource['aws_lambda_event_source_mapping']?.['projector']?.[0];
    expect(mapping).toMatchObject({
      function_response_types: ['ReportBatchItemFailures'],
      bisect_batch_on_function_error: true,
      starting_position: 'TRIM_HORIZON',
      destination_config: [{ on_failure: [{ destination_arn: '${aws_sqs_queue.on_failure.arn}' }] }],
    });
    const filter = mapping?.['filter_criteria'][0].filter[0].pattern as string;
    expect(filter.replace(/\s+/g, '')).toBe('${jsonencode({eventName=["INSERT"],dynamodb={NewImage={_df={S=var.streams}}}})}');
    const table = main.resource['aws_dynamodb_table']?.['events']?.[0];
    expect(table).toMatchObject({
      hash_key: 'pk',
      range_key: 'sk',
      stream_enabled: true,
      stream_view_type: events.StreamSpecification?.StreamViewType,
    });
    const policy = main.resource['aws_iam_role_policy']?.['projector']?.[0]?.['policy'] as string;
    for (const action of [...Actions.projectorOnEvents, ...Actions.projectorOnRows]) expect(policy).toContain(`"${action}"`);
    expect(policy).not.toMatch(/dynamodb:\*|Scan|DeleteItem/);
  });
});

describe('Terraform module: a workflow', () => {
  it('parses, and its reactions table, mapping, sweep and Scheduler resources carry what dynafold needs', async () => {
    type Hcl = { resource: Record<string, Record<string, Array<Record<string, any>>>>; locals: Array<Record<string, unknown>> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    const hcl = (await parseHcl('reactions.tf', read('terraform/reactions.tf'))) as Hcl;
    await expect(parseHcl('variables.tf', read('terraform/variables.tf'))).resolves.toHaveProperty('variable.use_scheduler');
    const table = hcl.resource['aws_dynamodb_table']?.['reactions']?.[0];
    expect(table).toMatchObject({
      hash_key: 'pk',
      range_key: 'sk',
      global_secondary_index: [{ name: 'dueTimers', hash_key: '_ds', range_key: '_due', projection_type: 'ALL' }],
      ttl: [{ attribute_name: 'ttl', enabled: true }],
    });
    expect(table?.['attribute'].map((attribute: { name: string }) => attribute.name)).toEqual(
      reactions.AttributeDefinitions?.map((a) => a.AttributeName),
    );
    const mapping = hcl.resource['aws_lambda_event_source_mapping']?.['reactions']?.[0];
    expect(mapping).toMatchObject({
      function_response_types: ['ReportBatchItemFailures'],
      bisect_batch_on_function_error: true,
      destination_config: [{ on_failure: [{ destination_arn: '${aws_sqs_queue.reaction_on_failure.arn}' }] }],
    });
    expect((mapping?.['filter_criteria'][0].filter[0].pattern as string).replace(/\s+/g, '')).toBe(
      '${jsonencode({eventName=["INSERT"],dynamodb={NewImage={_df={S=var.reaction_streams}}}})}',
    );
    expect(hcl.resource['aws_cloudwatch_event_rule']?.['timer_sweep']?.[0]).toMatchObject({ schedule_expression: 'rate(1 minute)' });
    expect(hcl.resource['aws_lambda_permission']?.['timer_sweep']?.[0]).toMatchObject({ principal: 'events.amazonaws.com' });
    const locals = Object.fromEntries(
      Object.entries(Object.assign({}, ...hcl.locals) as object).map(([name, value]) => [name, JSON.stringify(value)]),
    );
    const actions = (text: string | undefined) => [...(text ?? '').matchAll(/((?:dynamodb|scheduler|iam):\w+)/g)].map((match) => match[1]);
    expect(actions(locals['reaction_statements'])).toEqual([...Actions.reactionOnEvents, ...Actions.reactionOnProgress]);
    expect(actions(locals['firing_statements'])).toEqual([...Actions.timersOnDueIndex, ...Actions.timersOnTable, ...Actions.reactionOnEvents]);
    expect(locals['firing_statements']).toContain('/index/dueTimers');
    expect(actions(locals['scheduling_statements'])).toEqual([...schedules, 'iam:PassRole']);
    for (const name of ['aws_scheduler_schedule_group', 'aws_iam_role', 'aws_lambda_function']) {
      const resource = name === 'aws_iam_role' ? 'scheduler_invoke' : name === 'aws_lambda_function' ? 'timer_wakeup' : 'timers';
      expect(hcl.resource[name]?.[resource]?.[0]?.['count']).toBe('${var.use_scheduler ? 1 : 0}');
    }
    expect(hcl.resource['aws_iam_role']?.['scheduler_invoke']?.[0]?.['assume_role_policy']).toContain('scheduler.amazonaws.com');
    for (const policy of ['reaction', 'timer_sweep', 'timer_wakeup']) {
      expect(hcl.resource['aws_iam_role_policy']?.[policy]?.[0]?.['policy']).toMatch(
        policy === 'reaction' ? /local\.scheduling_statements/ : /local\.firing_statements, local\.scheduling_statements/,
      );
      expect(hcl.resource['aws_iam_role_policy']?.[policy]?.[0]?.['policy']).not.toMatch(/dynamodb:\*|Scan|DeleteItem/);
    }
  });
});

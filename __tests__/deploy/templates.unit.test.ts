/**
 * The SAM template, the Pipe and the Terraform module in examples/deploy parse, and carry what a dynafold
 * projector needs: the event filter of eventFilterPattern, ReportBatchItemFailures, bisect, an OnFailure
 * destination, the tables as the library defines them and exactly the granted actions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseHcl } from '@cdktf/hcl2json';
import { eventsTableDefinition } from 'dynafold';
import { eventFilterPattern } from 'dynafold/lambda';
import { Actions } from 'dynafold/cdk';
import { parse as parseYaml } from 'yaml';

const deploy = join(__dirname, '..', '..', 'examples', 'deploy');
const read = (file: string) => readFileSync(join(deploy, file), 'utf8');
const orderFilter = JSON.stringify(eventFilterPattern(['Order']));
const events = eventsTableDefinition('events');

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

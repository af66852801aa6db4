import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ConfigurationError } from '../errors';

/** How a function is subscribed to a table's stream (see the README's "Event source mapping settings"). */
export interface StreamMappingProps {
  /** Records per invocation, at most (up to 10,000). @defaultValue 100 */
  readonly batchSize?: number | undefined;
  /** Lanes per shard; rows are safe on any number, lanes only race on shared rows. @defaultValue 1 */
  readonly parallelizationFactor?: number | undefined;
  /** Retries of a failing batch before it goes to the OnFailure queue; `-1` until the records expire. @defaultValue 100 */
  readonly retryAttempts?: number | undefined;
  /** Age after which a failing batch goes to the OnFailure queue; absent: until the records expire (24 hours). */
  readonly maxRecordAge?: Duration | undefined;
  /** Splits a batch whose invocation throws (a partial response never bisects). @defaultValue true */
  readonly bisectBatchOnError?: boolean | undefined;
  /** Where a new mapping starts reading. @defaultValue `TRIM_HORIZON`: a new projection starts at the oldest record the stream holds. */
  readonly startingPosition?: lambda.StartingPosition | undefined;
  /** Where dropped batches' coordinates go (`replayFailure` reads them); a queue is created when absent. */
  readonly onFailureQueue?: sqs.IQueue | undefined;
  /** An alarm on the function's IteratorAge (Maximum per minute); `false` for none. @defaultValue 60 s for 5 minutes */
  readonly iteratorAgeAlarm?: false | { readonly threshold: Duration; readonly evaluationPeriods?: number | undefined } | undefined;
}

/** The defaults of {@link StreamMappingProps}, in one place. */
export const StreamMappingDefaults = {
  batchSize: 100,
  parallelizationFactor: 1,
  retryAttempts: 100,
  bisectBatchOnError: true,
  /** The IteratorAge (the oldest record's age, Maximum per minute) past which the alarm fires. */
  iteratorAgeThreshold: Duration.minutes(1),
  /** Minutes in a row the IteratorAge must pass the threshold before the alarm fires. */
  iteratorAgeEvaluationPeriods: 5,
  /** SQS's longest retention, to give an operator time to replay a dropped batch. */
  onFailureRetention: Duration.days(14),
} as const;

/**
 * A function subscribed to a table's stream with ReportBatchItemFailures, a filter, bisect on error,
 * bounded retries, an OnFailure queue and an alarm on iterator age.
 */
export class StreamMapping extends Construct {
  readonly onFailureQueue: sqs.IQueue;
  readonly iteratorAgeAlarm: cloudwatch.Alarm | undefined;
  readonly eventSource: DynamoEventSource;

  constructor(
    scope: Construct,
    id: string,
    target: { readonly function: lambda.IFunction; readonly table: dynamodb.ITable; readonly filter: Record<string, unknown> },
    props: StreamMappingProps,
  ) {
    super(scope, id);
    if (target.table.tableStreamArn === undefined) {
      throw new ConfigurationError(
        `${id}: the table has no stream; give a table created with a stream (EventsTable, OutboxTable, or tableStreamArn).`,
      );
    }
    this.onFailureQueue =
      props.onFailureQueue ??
      new sqs.Queue(this, 'OnFailure', { retentionPeriod: StreamMappingDefaults.onFailureRetention, encryption: sqs.QueueEncryption.SQS_MANAGED });
    const retryAttempts = props.retryAttempts ?? StreamMappingDefaults.retryAttempts;
    this.eventSource = new DynamoEventSource(target.table, {
      startingPosition: props.startingPosition ?? lambda.StartingPosition.TRIM_HORIZON,
      batchSize: props.batchSize ?? StreamMappingDefaults.batchSize,
      parallelizationFactor: props.parallelizationFactor ?? StreamMappingDefaults.parallelizationFactor,
      bisectBatchOnError: props.bisectBatchOnError ?? StreamMappingDefaults.bisectBatchOnError,
      ...(retryAttempts === -1 ? {} : { retryAttempts }),
      ...(props.maxRecordAge === undefined ? {} : { maxRecordAge: props.maxRecordAge }),
      reportBatchItemFailures: true,
      filters: [lambda.FilterCriteria.filter(target.filter)],
      onFailure: new SqsDlq(this.onFailureQueue),
    });
    target.function.addEventSource(this.eventSource);
    this.iteratorAgeAlarm =
      props.iteratorAgeAlarm === false
        ? undefined
        : new cloudwatch.Alarm(this, 'IteratorAge', {
            alarmDescription: 'The stream is read behind: the oldest record of the last batch is older than the threshold.',
            metric: target.function.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }),
            threshold: (props.iteratorAgeAlarm?.threshold ?? StreamMappingDefaults.iteratorAgeThreshold).toMilliseconds(),
            evaluationPeriods: props.iteratorAgeAlarm?.evaluationPeriods ?? StreamMappingDefaults.iteratorAgeEvaluationPeriods,
            comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
          });
  }
}

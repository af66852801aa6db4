import type { IStream } from 'aws-cdk-lib/aws-kinesis';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { eventFilterPattern } from 'dynafold/cdk';

export function projectFromKinesis(
  fn: lambda.IFunction,
  changes: IStream,
  onFailureQueue: IQueue,
): void {
  // #region kinesis
  fn.addEventSource(
    new KinesisEventSource(changes, {
      // the table's Kinesis data stream
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      onFailure: new SqsDlq(onFailureQueue),
      filters: [
        lambda.FilterCriteria.filter(
          eventFilterPattern(['Order'], { source: 'kinesis' }),
        ),
      ],
    }),
  );
  // #endregion kinesis
}

// #region imports
import {
  KinesisEventSource,
  SqsDlq,
} from 'aws-cdk-lib/aws-lambda-event-sources';
// #endregion imports

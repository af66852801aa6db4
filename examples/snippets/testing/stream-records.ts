// #region stream-records
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type {
  LambdaStreamEvent,
  PartialBatchResponse,
} from 'dynafold/lambda';
import {
  readStreamRecords,
  toLambdaRecord,
  type DynamoLocal,
} from 'dynafold/local';

export async function deliver(
  local: DynamoLocal,
  streamArn: string,
  handler: (event: LambdaStreamEvent) => Promise<PartialBatchResponse>,
) {
  const records = await readStreamRecords(
    new DynamoDBStreamsClient(local.clientConfig),
    streamArn,
  );
  return handler({
    Records: records.map((record) =>
      toLambdaRecord(record, { streamArn }),
    ),
  });
}
// #endregion stream-records

import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';

import { toLambdaRecord } from 'dynafold/local';

export { readStreamRecords as readAllRecords } from 'dynafold/local';

/** The record as Lambda delivers it (one argument, so it can be passed to `map`). */
export const asLambdaRecord = (record: _Record): DynamoDBRecord => toLambdaRecord(record);

/** The stream id and version an event INSERT carries, read straight from its keys (`Order#<id>`, `e#<version>`). */
export function eventOf(record: DynamoDBRecord | _Record): { streamId: string; version: number } | undefined {
  const image = record.dynamodb?.NewImage as Record<string, { S?: string; N?: string }> | undefined;
  if (record.eventName !== 'INSERT' || image?.['_df']?.S !== 'Order') return undefined;
  return { streamId: (image['pk']?.S ?? '').slice('Order#'.length), version: Number(image['sk']?.S?.slice('e#'.length)) };
}

export function sequenceOf(record: DynamoDBRecord | _Record): string {
  return record.dynamodb?.SequenceNumber ?? '';
}

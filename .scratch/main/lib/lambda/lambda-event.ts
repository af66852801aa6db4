/**
 * The Lambda event of a DynamoDB Streams event source mapping, and the answer it takes, as the package
 * declares them itself: the published types need no `@types/aws-lambda`. They are written to be
 * assignable both ways with that package's `DynamoDBStreamEvent`, `DynamoDBRecord` and
 * `DynamoDBBatchResponse`, so a handler typed with `DynamoDBStreamHandler` accepts `lambdaHandler`'s.
 */

/** The kinds of attribute value a stream image holds, by their tag. */
interface LambdaAttributeKinds {
  B: string;
  BOOL: boolean;
  BS: string[];
  L: LambdaAttributeValue[];
  M: Record<string, LambdaAttributeValue>;
  N: string;
  NS: string[];
  NULL: boolean;
  S: string;
  SS: string[];
}

/** An attribute value of a stream image as Lambda hands it over (binary as base64): exactly one tag. */
export type LambdaAttributeValue = {
  [K in keyof LambdaAttributeKinds]: { [P in K]: LambdaAttributeKinds[K] } & { [P in Exclude<keyof LambdaAttributeKinds, K>]?: never };
}[keyof LambdaAttributeKinds];

/** The `dynamodb` part of a Lambda stream record (`ApproximateCreationDateTime` in epoch seconds). */
export interface LambdaStreamChange {
  ApproximateCreationDateTime?: number | undefined;
  Keys?: Record<string, LambdaAttributeValue> | undefined;
  NewImage?: Record<string, LambdaAttributeValue> | undefined;
  OldImage?: Record<string, LambdaAttributeValue> | undefined;
  SequenceNumber?: string | undefined;
  SizeBytes?: number | undefined;
  StreamViewType?: 'KEYS_ONLY' | 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES' | undefined;
}

/** One record of a DynamoDB Streams Lambda event. */
export interface LambdaStreamRecord {
  awsRegion?: string | undefined;
  dynamodb?: LambdaStreamChange | undefined;
  eventID?: string | undefined;
  eventName?: 'INSERT' | 'MODIFY' | 'REMOVE' | undefined;
  eventSource?: string | undefined;
  eventSourceARN?: string | undefined;
  eventVersion?: string | undefined;
  userIdentity?: unknown;
}

/** The event a DynamoDB Streams event source mapping invokes its function with. */
export interface LambdaStreamEvent {
  Records: LambdaStreamRecord[];
}

/** The `kinesis` part of a Kinesis Data Streams record (`approximateArrivalTimestamp` in epoch seconds). */
export interface LambdaKinesisPayload {
  /** Base64; for Kinesis Data Streams for DynamoDB, the JSON of a DynamoDB change record. */
  data: string;
  sequenceNumber: string;
  partitionKey?: string | undefined;
  approximateArrivalTimestamp?: number | undefined;
  kinesisSchemaVersion?: string | undefined;
}

/** One record of a Kinesis Data Streams Lambda event. */
export interface LambdaKinesisRecord {
  awsRegion?: string | undefined;
  eventID?: string | undefined;
  eventName?: string | undefined;
  eventSource?: string | undefined;
  eventSourceARN?: string | undefined;
  eventVersion?: string | undefined;
  invokeIdentityArn?: string | undefined;
  kinesis: LambdaKinesisPayload;
}

/** The event a Kinesis Data Streams event source mapping invokes its function with. */
export interface LambdaKinesisEvent {
  Records: LambdaKinesisRecord[];
}

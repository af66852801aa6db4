import { startDynamoLocal } from '../../lib/local';

/** One DynamoDB Local for the whole run; test files isolate themselves with their own tables. */
export default async function globalSetup(): Promise<void> {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  if (process.env['DYNAMODB_ENDPOINT'] !== undefined) return;
  const local = await startDynamoLocal();
  process.env['DYNAMODB_ENDPOINT'] = local.endpoint;
  (globalThis as { __dynamoLocal?: { stop(): Promise<void> } }).__dynamoLocal = local;
}

import { workerEndpoint } from './worker-endpoint';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
// Every client and child process of this worker reaches its own DynamoDB Local through DYNAMODB_ENDPOINT.
const own = workerEndpoint();
if (own !== undefined) process.env['DYNAMODB_ENDPOINT'] = own;

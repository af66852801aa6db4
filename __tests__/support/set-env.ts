import { DYNAMODB_ENDPOINT, localClientConfig } from 'dynafold/testing';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
// The worker's own DynamoDB Local, also for the tests that read the variable itself to hand it to a
// child process.
process.env[DYNAMODB_ENDPOINT] = localClientConfig().endpoint;

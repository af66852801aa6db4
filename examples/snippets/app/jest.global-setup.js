// Under jest, globalSetup in jest.config.js instead of the kit's: one
// DynamoDB Local per worker (the kit's teardown stops them all).
import { startTestDynamo } from 'dynafold/testing';

export default (globalConfig) =>
  startTestDynamo({ instances: globalConfig.maxWorkers });

/**
 * `dynafold/fastify`: a Fastify plugin for services built on dynafold (errors as Problem Details, the app
 * decorated with streams and read models, a change feed run in the background). Needs `fastify` 5; a
 * change feed also needs `@aws-sdk/client-dynamodb-streams`, loaded only when one is configured.
 * This file is the subpath's public API.
 */
export { dynafold, problemHandler } from './plugin';
export type { DynafoldPluginOptions } from './plugin';
export { etagOf, expectedVersionOf, notFoundProblem, problemOf, PROBLEM_CONTENT_TYPE, ServiceDefaults } from '../http';
export type {
  DynafoldServices,
  FeedHealth,
  GenericProblem,
  ProblemOptions,
  ProblemResponse,
  ServiceFeedConsumer,
  ServiceFeedOptions,
  ServiceHealth,
  ServiceOptions,
} from '../http';

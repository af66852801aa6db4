/**
 * `dynafold/express`: Express 5 integration for services built on dynafold (errors as Problem Details,
 * streams and read models in `app.locals`, a change feed run in the background). Needs `express` 5; a
 * change feed also needs `@aws-sdk/client-dynamodb-streams`, loaded only when one is configured.
 * This file is the subpath's public API.
 */
export { dynafold, notFoundHandler, problemHandler } from './integration';
export type { DynafoldExpress, DynafoldExpressOptions } from './integration';
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

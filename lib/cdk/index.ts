/**
 * `dynafold/cdk`: AWS CDK constructs for dynafold's tables and the ways it runs (a projector or an outbox
 * relay on Lambda, a change feed as a service, reactions and their timers), and `eventFilterPattern` (also in `dynafold/lambda`) for a
 * mapping of one's own. Needs `aws-cdk-lib` and `constructs`. This file is the subpath's public API.
 */
export { EventsTable, ReadModelTable, OutboxTable, CheckpointTable, ReactionsTable, DynafoldTable } from './tables';
export type { DynafoldTableProps, EventsTableProps, ReadModelTableProps } from './tables';
export { StreamMapping, StreamMappingDefaults } from './stream-mapping';
export type { StreamMappingProps } from './stream-mapping';
export { Projector, grantProjection } from './projector';
export type { ProjectorProps } from './projector';
export { OutboxRelayFunction } from './outbox-relay';
export type { OutboxRelayFunctionProps } from './outbox-relay';
export { ReactionFunction } from './reaction-function';
export type { ReactionFunctionProps } from './reaction-function';
export { grantReaction, grantTimerFiring } from './reaction-grants';
export type { ReactionTables } from './reaction-grants';
export { TimerSweep, TimerSweepDefaults } from './timer-sweep';
export type { TimerSweepProps } from './timer-sweep';
export { TimerSchedules } from './timer-schedules';
export type { TimerSchedulesProps } from './timer-schedules';
export { ChangeFeedResources } from './change-feed';
export type { ChangeFeedResourcesProps } from './change-feed';
export { Actions } from './permissions';
export { eventFilterPattern } from '../store';
export type { EventFilterOptions } from '../store';

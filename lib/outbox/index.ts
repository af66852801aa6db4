/**
 * `dynafold/outbox`: the transactional outbox. A projection's `outbox` option (`OutboxOptions`) writes
 * messages in the same transaction as its rows, into a table made with `outboxTableDefinition`;
 * `OutboxRelay` publishes them in order, from that table's stream, run by a Lambda function or a change
 * feed of its own, a process apart from the projection's. The relay lives here; the projector keeps only
 * the writer, so an app that imports the root alone loads no relay. This file is the subpath's public API.
 * Beyond what the root entry loads, it loads only the relay.
 */
export { OutboxRelay, OutboxRelayDefaults } from './relay';
export type { OutboxRelayOptions, RelayResult } from './relay';
export type { OutboxMessage } from './stored-message';
export { outboxTableDefinition } from '../projector';
export type { OutboxOptions } from '../projector';

/**
 * `dynafold/outbox`: the transactional outbox. A projection's `outbox` option (`OutboxOptions`) writes
 * messages in the same transaction as its rows, into a table made with `outboxTableDefinition`;
 * `OutboxRelay` publishes them in order, from that table's stream, run by a Lambda function or a change
 * feed of its own. This file is the subpath's public API. It loads nothing the root entry does not.
 */
export { OutboxRelay, OutboxRelayDefaults, outboxTableDefinition } from '../projector';
export type { OutboxRelayOptions, RelayResult, OutboxOptions, OutboxMessage } from '../projector';

// The outbox: the messages a row's write puts in the same transaction (outbox), and the relay that
// publishes them in order (relay).
export { OutboxBatch, OutboxLayout, OutboxWriter, outboxTableDefinition, storedMessage } from './outbox';
export type { ExtraPut, OutboxMessage, OutboxOptions } from './outbox';
export { OutboxRelay, OutboxRelayDefaults } from './relay';
export type { OutboxRelayOptions, RelayResult } from './relay';

// A projection's outbox, the writer's side: the messages a row's write puts in its transaction (outbox-writer,
// which the engine asks through its RowMessages port) and the items' layout and table (outbox-layout), which
// the relay of `lib/outbox` reads back.
export { OutboxWriter, outboxPut } from './outbox-writer';
export type { OutboxEntry, OutboxOptions } from './outbox-writer';
export { OutboxLayout, outboxTableDefinition } from './outbox-layout';

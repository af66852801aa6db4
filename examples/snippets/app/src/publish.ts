// An outbox relay's publish, passing each event's trace context on with
// its message (see Beyond one source for the outbox).
import type { OutboxMessage } from 'dynafold/outbox';

/** Where messages go: your bus (SNS, EventBridge, Kafka). */
export interface Bus {
  send(body: unknown, headers: Record<string, string>): Promise<void>;
}

// Runs inside the relay's `send` span, linked to the event's append;
// `message.trace` is the append's own context, for the consumer.
export const publishTo = (bus: Bus) => (message: OutboxMessage) =>
  bus.send(message.message, {
    'message-id': message.id,
    ...(message.trace === undefined
      ? {}
      : { traceparent: message.trace.traceparent }),
  });

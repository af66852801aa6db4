// Passing an event's trace context on with its outbox message.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { OutboxRelay, type OutboxMessage } from 'dynafold/outbox';

declare const bus: {
  send(body: unknown, headers: Record<string, string>): Promise<void>;
};

// #region outbox
const relay = new OutboxRelay({
  client: new DynamoDBClient({}),
  table: 'outbox',
  // Runs inside the relay's `send` span, linked to the event's append;
  // `message.trace` is the append's own context, for the consumer.
  publish: (message: OutboxMessage) =>
    bus.send(message.message, {
      'message-id': message.id,
      ...(message.trace === undefined
        ? {}
        : { traceparent: message.trace.traceparent }),
    }),
});
// #endregion outbox

export { relay };

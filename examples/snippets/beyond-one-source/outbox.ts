import type { ChangeFeedConsumer } from 'dynafold/feed';
import type { LambdaStreamEvent } from 'dynafold/lambda';
import { client } from '../store/model';

declare const bus: {
  send(message: { id: string; body: unknown }): Promise<void>;
};

// #region relay
import { OutboxRelay } from 'dynafold/outbox';
import { runBatches } from 'dynafold/feed';

const relay = new OutboxRelay({
  client,
  table: 'outbox',
  publish: async (m) => bus.send({ id: m.id, body: m.message }),
});

export const handler = async (event: LambdaStreamEvent) =>
  // Lambda on the outbox's stream
  (await relay.processBatch(event.Records)).response;

export async function relayFrom(
  outboxFeed: ChangeFeedConsumer,
): Promise<void> {
  await runBatches(outboxFeed, (batch) =>
    relay.processBatch(batch.records).then((r) => r.response),
  ); // or the change feed
  await relay.drainAll(); // or a sweep, after an outage
}
// #endregion relay

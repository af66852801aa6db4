// An outbox relay of a projection whose events hold personal data (see
// Beyond one source): it opens the messages with the subjects' keys,
// and deletes unpublished those of a subject forgotten before they went
// out (counted in `erased`).
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SubjectKeys } from 'dynafold/erasure';
import { OutboxRelay } from 'dynafold/outbox';

export const customerRelay = (
  client: DynamoDBClient,
  keys: SubjectKeys,
) =>
  new OutboxRelay({
    client,
    table: 'outbox',
    keys,
    publish: async (message) => {
      console.log(message.id, message.message);
    },
  });

/**
 * A customer stream whose personal fields are sealed per subject, and how a subject is forgotten.
 * Type-checked with the examples; the guide docs/guides/personal-data.md includes its regions.
 */
import { randomBytes } from 'node:crypto';
import {
  CreateTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { EventStream, decoder, type Projection } from 'dynafold';
import {
  LocalKeyProvider,
  SubjectKeys,
  subjectKeysTableDefinition,
} from 'dynafold/erasure';
import type { StreamImage } from 'dynafold/lambda';
import { OutboxRelay } from 'dynafold/outbox';

const client = new DynamoDBClient({});

export async function createKeyTable() {
  // #region table
  await client.send(
    new CreateTableCommand(subjectKeysTableDefinition('subject-keys')),
  );
  // #endregion table
}

// #region keys
// One key per data subject, in a table of its own, wrapped by a key
// provider. LocalKeyProvider is for tests and DynamoDB Local; use
// KmsKeyProvider (dynafold/kms) in production.
export const keys = new SubjectKeys({
  client,
  table: 'subject-keys',
  provider: new LocalKeyProvider({ key: randomBytes(32) }),
});
// #endregion keys

// #region declare
export const Customers = new EventStream({
  client,
  table: 'events',
  name: 'Customer',
  streamId: ['customerId'],
  events: {
    Registered: z.object({
      name: z.string(),
      email: z.string(),
      country: z.string(),
    }),
    AddressChanged: z.object({
      address: z
        .object({ street: z.string(), city: z.string() })
        .nullable(),
    }),
    // An event about someone else: the subject is read from the data.
    Referred: z.object({
      friendId: z.string(),
      friendName: z.string(),
    }),
    OrderPlaced: z.object({ orderId: z.string(), total: z.number() }),
  },
  personalData: {
    keys,
    events: {
      // Each personal field, with what it reads as once its subject is
      // forgotten.
      Registered: {
        subject: { streamId: 'customerId' },
        fields: { name: '[erased]', email: '[erased]' },
      },
      AddressChanged: {
        subject: { streamId: 'customerId' },
        fields: { address: null },
      },
      Referred: {
        subject: { data: 'friendId' },
        fields: { friendName: '[erased]' },
      },
    },
  },
});
// #endregion declare

export async function register(customerId: string) {
  // #region append
  // Written sealed; read (by every reader) in the clear.
  await Customers.append({ customerId }, [
    {
      type: 'Registered',
      data: {
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        country: 'UK',
      },
    },
  ]);
  const [registered] = await Customers.read({ customerId });
  // registered.data.email === 'ada@example.com'
  // #endregion append
  return registered;
}

export async function forget(
  customerId: string,
  profiles: Projection<typeof Customers>,
) {
  // #region forget
  const forgotten = await keys.forget(customerId);
  // From now on its fields read as declared ('[erased]', null): here at
  // once, in other processes within the key cache's lifetime (5 min).
  // Rows folded before hold what they held: rebuild them after that.
  setTimeout(
    () => void profiles.rebuild({ customerId }),
    Date.parse(forgotten.settledAt) - Date.now(),
  );
  // #endregion forget
}

export function decodeBatch(
  images: ReadonlyArray<StreamImage | undefined>,
) {
  // #region decoder
  const decode = decoder({ Customer: Customers });
  return (async () => {
    // One read of the batch's keys, then decoding needs no wait.
    await decode.loadKeys(images);
    return images.map((image) => decode(image));
  })();
  // #endregion decoder
}

// #region relay
// Messages of events with personal data are sealed for their subjects:
// the relay opens them with the keys, and deletes unpublished those
// of a subject forgotten before they went out (counted in `erased`).
export const relay = new OutboxRelay({
  client,
  table: 'outbox',
  keys,
  publish: async (message) => {
    console.log(message.id, message.message);
  },
});
// #endregion relay

// Customers, whose personal fields are sealed with a key per data
// subject: the key table, the stream, a profile row per customer.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventStream, Projection, ReadModel } from 'dynafold';
import { LocalKeyProvider, SubjectKeys } from 'dynafold/erasure';
import { z } from 'zod';

/** One key per data subject, wrapped by a key provider. */
export const subjectKeys = (client: DynamoDBClient, table: string) =>
  new SubjectKeys({
    client,
    table,
    // Its key in a file made on first use, which every process started
    // here shares (keep it out of version control). In production,
    // KmsKeyProvider (dynafold/kms).
    provider: new LocalKeyProvider({ keyFile: '.subject-key' }),
  });

export const customerStream = (
  client: DynamoDBClient,
  table: string,
  keys: SubjectKeys,
) =>
  new EventStream({
    client,
    table,
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
    },
    personalData: {
      keys,
      // Each personal field, and what it reads as once its subject is
      // forgotten.
      events: {
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

export const customerProfiles = (
  client: DynamoDBClient,
  table: string,
) =>
  new ReadModel({
    client,
    table,
    name: 'CustomerProfile',
    schema: z.object({
      customerId: z.string(),
      name: z.string(),
      country: z.string(),
      version: z.number(),
    }),
    key: {
      pk: { field: 'pk', composite: ['customerId'] },
      sk: { field: 'sk', composite: [] },
    },
  });

export const customerProfileProjection = (
  stream: ReturnType<typeof customerStream>,
  readModel: ReturnType<typeof customerProfiles>,
) =>
  new Projection({
    name: 'customer-profiles',
    stream,
    readModel,
    key: (streamId) => ({ customerId: streamId.customerId }),
    initial: (streamId) => ({
      customerId: streamId.customerId,
      name: '',
      country: '',
      version: 0,
    }),
    evolve: (row, event) =>
      event.type === 'Registered'
        ? { ...row, name: event.data.name, country: event.data.country }
        : row,
    checkpoint: 'version',
  });

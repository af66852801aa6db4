/**
 * The setup the personal data tests share: tables for customers (events with their stream, profile rows,
 * subject keys and, when asked, an outbox), and the subject keys, customer streams and profile read model
 * a test builds on them.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LocalKeyProvider, SubjectKeys, SubjectKeysOptions } from 'dynafold/erasure';
import { createTestTables, type TestTables } from 'dynafold/testing';
import { customerProfiles, customerStream, subjectKeys, testKeyProvider } from './customers';
import { testClient } from './dynamo';

export interface CustomerTablesOptions {
  /** An outbox table too. @defaultValue false */
  readonly outbox?: boolean;
}

/** Customer tables with what a test builds on them; each call builds afresh (new keys: a process of their own). */
export class CustomerSetup {
  constructor(
    readonly client: DynamoDBClient,
    readonly provider: LocalKeyProvider,
    readonly tables: TestTables,
  ) {}

  /** Subject keys on the key table, with a cache of their own. */
  keys(options: Partial<SubjectKeysOptions> = {}): SubjectKeys {
    return subjectKeys(this.client, this.tables.subjectKeys as string, this.provider, options);
  }

  /** The customer stream on the events table, sealing with `keys` (new ones when not given). */
  customers(keys: SubjectKeys = this.keys(), options: Parameters<typeof customerStream>[3] = {}): ReturnType<typeof customerStream> {
    return customerStream(this.client, this.tables.events as string, keys, options);
  }

  /** The profile read model on the read-model table. */
  profiles(): ReturnType<typeof customerProfiles> {
    return customerProfiles(this.client, this.tables.readModels as string);
  }
}

/** Creates customer tables under `prefix`: events, profile rows, subject keys and, with `outbox`, an outbox. */
export function createCustomerTables(client: DynamoDBClient, prefix: string, options: CustomerTablesOptions = {}): Promise<TestTables> {
  return createTestTables(client, {
    prefix,
    readModels: [customerProfiles(client, 'shape-only')],
    subjectKeys: true,
    outbox: options.outbox === true,
  });
}

/**
 * The customer setup of a whole test file, with a client and a key provider of its own: its tables are made
 * before the file's tests and deleted after them, when the client is destroyed. The setup is returned at
 * once (the file's tests are declared with it); its `tables` are filled in when they are made.
 */
export function customerSetupOfFile(prefix: string, options: CustomerTablesOptions = {}): CustomerSetup {
  const client = testClient();
  const made: { -readonly [K in keyof TestTables]?: TestTables[K] } = {};
  const setup = new CustomerSetup(client, testKeyProvider(), made as TestTables);
  beforeAll(async () => {
    Object.assign(made, await createCustomerTables(client, prefix, options));
  });
  afterAll(async () => {
    await made.delete?.();
    client.destroy();
  });
  return setup;
}

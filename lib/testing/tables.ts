import { randomBytes } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, type CreateTableCommandInput, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../errors';
import { CheckpointTable, errorName } from '../dynamo';
import { outboxTableDefinition } from '../projector';
import { eventsTableDefinition } from '../store';
import { readModelTableDefinition, type ReadModel } from '../read-model';
import { subjectKeysTableDefinition } from '../erasure';

/** DynamoDB's table names: 3 to 255 of these characters. */
const TABLE_NAME = /^[a-zA-Z0-9_.-]+$/;
/** What {@link uniqueTableName} adds to the prefix: `-`, a base-36 time and `-` with 8 hex digits. */
const SUFFIX_LENGTH = 1 + 9 + 1 + 8;

/**
 * A table name no other test (file, worker or run) uses: `<prefix>-<time>-<random>`.
 *
 * @example
 * ```ts
 * uniqueTableName('orders')   // 'orders-mf3k2a1b-9c0e4f12'
 * ```
 */
export function uniqueTableName(prefix = 'test'): string {
  if (prefix.length === 0 || !TABLE_NAME.test(prefix) || prefix.length + SUFFIX_LENGTH > 255) {
    throw new ConfigurationError(
      `Expected a table name prefix of 1 to ${255 - SUFFIX_LENGTH} letters, digits, '_', '-' or '.', got ${JSON.stringify(prefix)}.`,
    );
  }
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** Which tables {@link createTestTables} creates. */
export interface TestTablesOptions {
  /** Starts every table's name. @defaultValue 'test' */
  readonly prefix?: string | undefined;
  /** An events table (with its NEW_AND_OLD_IMAGES stream). @defaultValue true */
  readonly events?: boolean | undefined;
  /**
   * A read-model table shaped for these models' keys and indexes (the table name they carry is not used,
   * so models made for another table will do). @defaultValue none
   */
  readonly readModels?: ReadonlyArray<ReadModel> | undefined;
  /** An outbox table. @defaultValue false */
  readonly outbox?: boolean | undefined;
  /** A checkpoint table for `DynamoCheckpointStore`. @defaultValue false */
  readonly checkpoints?: boolean | undefined;
  /** A key table for `SubjectKeys` (personal data). @defaultValue false */
  readonly subjectKeys?: boolean | undefined;
}

/** Tables made for one test (file), deleted by {@link TestTables.delete}. */
export interface TestTables {
  /** The events table's name, when asked for. */
  readonly events: string | undefined;
  /** The events table's stream ARN, when an events table was asked for. */
  readonly eventsStreamArn: string | undefined;
  readonly readModels: string | undefined;
  readonly outbox: string | undefined;
  readonly checkpoints: string | undefined;
  readonly subjectKeys: string | undefined;
  /** Deletes every table made (one already gone is fine). Safe to call twice. */
  delete(): Promise<void>;
}

/** One table of a fixture: its unique name and CreateTable input. */
type Wanted = readonly [
  kind: 'events' | 'readModels' | 'outbox' | 'checkpoints' | 'subjectKeys',
  definition: (name: string) => CreateTableCommandInput,
];

/**
 * Creates the tables a test needs under unique names, at once, and hands them back with `delete()`.
 *
 * @example
 * ```ts
 * const tables = await createTestTables(client, { readModels: [OrderSummaries], checkpoints: true })
 * const OrderEvents = orderEvents(client, tables.events!)
 * afterAll(() => tables.delete())
 * ```
 */
export async function createTestTables(client: DynamoDBClient, options: TestTablesOptions = {}): Promise<TestTables> {
  const prefix = options.prefix ?? 'test';
  const models = options.readModels ?? [];
  const wanted: Wanted[] = [
    ...(options.events === false ? [] : [['events', eventsTableDefinition] as const]),
    ...(models.length === 0 ? [] : [['readModels', (name: string) => readModelTableDefinition(name, models)] as const]),
    ...(options.outbox === true ? [['outbox', outboxTableDefinition] as const] : []),
    ...(options.checkpoints === true ? [['checkpoints', CheckpointTable.definition] as const] : []),
    ...(options.subjectKeys === true ? [['subjectKeys', subjectKeysTableDefinition] as const] : []),
  ];
  const names = new Map(wanted.map(([kind]) => [kind, uniqueTableName(`${prefix}-${kind === 'readModels' ? 'views' : kind}`)]));
  const created = await createTables(
    client,
    wanted.map(([kind, definition]) => definition(names.get(kind) as string)),
  );
  let deleted: Promise<void> | undefined;
  return {
    events: names.get('events'),
    eventsStreamArn: created.get(names.get('events') ?? ''),
    readModels: names.get('readModels'),
    outbox: names.get('outbox'),
    checkpoints: names.get('checkpoints'),
    subjectKeys: names.get('subjectKeys'),
    delete: () => (deleted ??= deleteTables(client, [...created.keys()])),
  };
}

/**
 * Creates tables at once and resolves each one's stream ARN by name; when one fails, deletes the others
 * before rejecting.
 */
export async function createTables(
  client: DynamoDBClient,
  definitions: ReadonlyArray<CreateTableCommandInput>,
): Promise<Map<string, string | undefined>> {
  const created = new Map<string, string | undefined>();
  try {
    await Promise.all(
      definitions.map(async (definition) => {
        const answer = await client.send(new CreateTableCommand(definition));
        created.set(definition.TableName as string, answer.TableDescription?.LatestStreamArn);
      }),
    );
  } catch (error) {
    await deleteTables(client, [...created.keys()]);
    throw error;
  }
  return created;
}

/** Deletes tables, ignoring the ones already gone. */
export async function deleteTables(client: DynamoDBClient, names: ReadonlyArray<string>): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      try {
        await client.send(new DeleteTableCommand({ TableName: name }));
      } catch (error) {
        if (errorName(error) !== 'ResourceNotFoundException') throw error;
      }
    }),
  );
}

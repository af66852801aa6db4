import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoRequestError, ValidationError } from '../errors';
import { KeyLimits, asRequestError, getItem, keyedTableDefinition, landedDespite, newWriteId, request, sendConditional } from '../dynamo';
import { ILL_FORMED, backoffDelay, isWellFormed, sleep } from '../util';
import { SubjectKeysDefaults } from './defaults';
import { storedBytes } from '../personal';

/**
 * How subjects' keys are laid out in their table: one item per subject (`pk = subject#<id>`, `sk = key`)
 * holding its data key wrapped by the key provider, or, once the subject is forgotten, only when that was
 * (the key is removed): the marker that stops a new key from ever being made for it.
 */
export const KeyTableLayout = {
  partitionKey: 'pk',
  sortKey: 'sk',
  subjectPrefix: 'subject#',
  keySortKey: 'key',
  /** The wrapped data key (binary); absent once the subject is forgotten. */
  wrappedKey: 'wrappedKey',
  /** The key provider's id (which key-encryption key wrapped it). */
  provider: 'provider',
  createdAt: 'createdAt',
  /** When the subject was forgotten (ISO 8601): the marker. */
  forgottenAt: 'forgottenAt',
  /** The id of the forget that left the marker (see `markForgotten`). */
  forgottenBy: 'forgottenBy',
} as const;

/** A subject id is part of a partition key; longer ones are refused before anything is sent. */
const MAX_SUBJECT_BYTES = 1024;

/** Checks a subject id: a non-empty, well-formed string of at most 1,024 bytes; else a `ValidationError` saying where it came from. */
export function requireSubject(subject: unknown, where: string): string {
  if (typeof subject !== 'string' || subject === '') {
    throw new ValidationError(`${where}: the subject id must be a non-empty string, got ${subject === '' ? 'an empty string' : typeof subject}.`, [
      { path: [], message: 'not a subject id' },
    ]);
  }
  if (!isWellFormed(subject)) throw new ValidationError(`${where}: the subject id ${ILL_FORMED}.`, [{ path: [], message: 'ill-formed UTF-16' }]);
  if (Buffer.byteLength(subject) > MAX_SUBJECT_BYTES) {
    throw new ValidationError(`${where}: the subject id is over ${MAX_SUBJECT_BYTES} bytes; use a short, opaque id (not the person's data).`, [
      { path: [], message: `over ${MAX_SUBJECT_BYTES} bytes` },
    ]);
  }
  return subject;
}

/** What the table holds for a subject. */
export type KeyRecord =
  { readonly kind: 'key'; readonly wrapped: Uint8Array; readonly provider: string } | { readonly kind: 'forgotten'; readonly forgottenAt: string };

function keyOf(subject: string): Record<string, string> {
  return { [KeyTableLayout.partitionKey]: KeyTableLayout.subjectPrefix + subject, [KeyTableLayout.sortKey]: KeyTableLayout.keySortKey };
}

function subjectOf(item: Readonly<Record<string, unknown>>): string {
  return String(item[KeyTableLayout.partitionKey]).slice(KeyTableLayout.subjectPrefix.length);
}

/** The record an item holds; an item with neither a key nor a marker (written by hand) holds none. */
function recordOf(item: Readonly<Record<string, unknown>> | undefined): KeyRecord | undefined {
  if (item === undefined) return undefined;
  const forgottenAt = item[KeyTableLayout.forgottenAt];
  if (typeof forgottenAt === 'string') return { kind: 'forgotten', forgottenAt };
  const wrapped = storedBytes(item[KeyTableLayout.wrappedKey]);
  const provider = item[KeyTableLayout.provider];
  return wrapped === undefined ? undefined : { kind: 'key', wrapped, provider: typeof provider === 'string' ? provider : '' };
}

/**
 * The records of `subjects`, in BatchGetItems of 100 keys, asking again for those DynamoDB leaves
 * unprocessed. Subjects the table holds nothing for are absent from the answer.
 */
export async function readKeyRecords(
  documents: DynamoDBDocumentClient,
  table: string,
  subjects: ReadonlyArray<string>,
  consistent: boolean,
  signal?: AbortSignal,
): Promise<Map<string, KeyRecord>> {
  const found = new Map<string, KeyRecord>();
  const retry = SubjectKeysDefaults.unprocessedKeys;
  for (let start = 0; start < subjects.length; start += KeyLimits.batchGetKeys) {
    let pending: Record<string, unknown>[] = subjects.slice(start, start + KeyLimits.batchGetKeys).map(keyOf);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === retry.attempts) {
        throw new DynamoRequestError(
          'BatchGetItem',
          new Error(`${pending.length} keys of ${table} were still unprocessed after ${attempt} requests.`),
        );
      }
      if (attempt > 0) await sleep(backoffDelay(attempt - 1, retry.backoff), signal);
      const keys = pending;
      const result = await request('BatchGetItem', table, () =>
        documents.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: consistent } } })),
      );
      for (const item of result.Responses?.[table] ?? []) {
        const record = recordOf(item);
        if (record !== undefined) found.set(subjectOf(item), record);
      }
      pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return found;
}

/** The record of one subject, strongly consistent. */
export async function readKeyRecord(documents: DynamoDBDocumentClient, table: string, subject: string): Promise<KeyRecord | undefined> {
  const result = await request('GetItem', table, () =>
    documents.send(new GetCommand({ TableName: table, Key: keyOf(subject), ConsistentRead: true })),
  );
  return recordOf(result.Item);
}

/**
 * Stores a new subject's wrapped key unless the table holds something for it already; resolves whether it
 * did. A repeat of the Put by the SDK (its answer lost) that meets this very key, the same wrapped bytes,
 * is this call's own.
 */
export async function putNewKey(
  documents: DynamoDBDocumentClient,
  table: string,
  subject: string,
  key: { readonly wrapped: Uint8Array; readonly provider: string },
): Promise<boolean> {
  const outcome = await sendConditional(
    'PutItem',
    table,
    () =>
      documents.send(
        new PutCommand({
          TableName: table,
          Item: {
            ...keyOf(subject),
            [KeyTableLayout.wrappedKey]: key.wrapped,
            [KeyTableLayout.provider]: key.provider,
            [KeyTableLayout.createdAt]: new Date().toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': KeyTableLayout.partitionKey },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    {
      isOwn: (item) => {
        const stored = storedBytes(item[KeyTableLayout.wrappedKey]);
        return stored !== undefined && Buffer.from(stored).equals(key.wrapped);
      },
      read: () => getItem(documents, table, keyOf(subject)),
    },
  );
  return outcome.kind === 'written';
}

/** What forgetting a subject found and left. */
export interface ForgetRecord {
  /** When the subject was forgotten: now, or when it first was. */
  readonly forgottenAt: string;
  /** Whether it had been forgotten before (nothing changed). */
  readonly alreadyForgotten: boolean;
  /** Whether a key was deleted (a subject with no data yet has none: the marker still stops one being made). */
  readonly keyDeleted: boolean;
}

/**
 * Deletes a subject's wrapped key and leaves the marker, in one UpdateItem: the time of the first forget
 * is kept, and a subject the table never held gets the marker too. The marker names the forget that left
 * it (a new id per call): when the answer is lost and the SDK sends the update again, the repeat finds
 * the marker its own and reports what the first attempt did. That attempt deleted a key exactly when the
 * item has one's `createdAt`: a key is only ever made before the marker, which no key outlives.
 */
export async function markForgotten(documents: DynamoDBDocumentClient, table: string, subject: string): Promise<ForgetRecord> {
  const now = new Date().toISOString();
  const forgetId = newWriteId();
  const result = await forgetUpdate(documents, table, subject, forgetId, () =>
    documents.send(
      new UpdateCommand({
        TableName: table,
        Key: keyOf(subject),
        UpdateExpression:
          'SET #forgottenAt = if_not_exists(#forgottenAt, :now), #forgottenBy = if_not_exists(#forgottenBy, :forgetId) REMOVE #wrappedKey, #provider',
        ExpressionAttributeNames: {
          '#forgottenAt': KeyTableLayout.forgottenAt,
          '#forgottenBy': KeyTableLayout.forgottenBy,
          '#wrappedKey': KeyTableLayout.wrappedKey,
          '#provider': KeyTableLayout.provider,
        },
        ExpressionAttributeValues: { ':now': now, ':forgetId': forgetId },
        ReturnValues: 'ALL_OLD',
      }),
    ),
  );
  const before = result.Attributes ?? {};
  const earlier = before[KeyTableLayout.forgottenAt];
  if (typeof earlier === 'string' && before[KeyTableLayout.forgottenBy] === forgetId) {
    // This call's own first attempt left the marker: it did what a first forget does.
    return { forgottenAt: earlier, alreadyForgotten: false, keyDeleted: before[KeyTableLayout.createdAt] !== undefined };
  }
  return {
    forgottenAt: typeof earlier === 'string' ? earlier : now,
    alreadyForgotten: typeof earlier === 'string',
    keyDeleted: before[KeyTableLayout.wrappedKey] !== undefined,
  };
}

/**
 * Sends a forget's update; after a failure (the SDK gave up on a request it may have sent), the key item
 * is read: a marker of this forget's own is its success, and the item as read stands for its answer
 * (a key's `createdAt` says a key was there: see `markForgotten`).
 */
async function forgetUpdate(
  documents: DynamoDBDocumentClient,
  table: string,
  subject: string,
  forgetId: string,
  send: () => Promise<{ Attributes?: Record<string, unknown> | undefined }>,
): Promise<{ Attributes?: Record<string, unknown> | undefined }> {
  try {
    return await send();
  } catch (error) {
    let item: Readonly<Record<string, unknown>> | undefined;
    const own = {
      isOwn: (found: Readonly<Record<string, unknown>>) => found[KeyTableLayout.forgottenBy] === forgetId,
      read: async () => (item = await getItem(documents, table, keyOf(subject))),
    };
    if ((await landedDespite(error, own)) && item !== undefined) return { Attributes: item };
    throw asRequestError('UpdateItem', table, error);
  }
}

/**
 * The CreateTable input of a subject-key table: `pk` + `sk` strings, on-demand, no stream (nothing
 * consumes its changes, and a stream would keep copies of wrapped keys for 24 hours after a forget).
 *
 * @example
 * ```ts
 * await client.send(new CreateTableCommand(subjectKeysTableDefinition('subject-keys')))
 * ```
 */
export function subjectKeysTableDefinition(tableName: string): CreateTableCommandInput {
  return keyedTableDefinition(tableName);
}

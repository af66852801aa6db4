import { randomBytes } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { asRequestError, isConditionFailure, type RequestTables } from './request';

/*
 * Why conditional writes carry an identity of their own. The SDK sends a request again when its answer is
 * lost (a timeout, a reset connection, a 500), although DynamoDB may have applied it. A conditional write
 * sent again then meets its own effect: its condition fails on the item it wrote itself, which looks just
 * like a rival's. So every conditional write that could meet itself stores an id on the item it writes and
 * asks for the item that fails its condition (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`, which costs
 * nothing); a failure whose item carries its id is its own success. This is the one place that decides it.
 * Transactions need none of it: the SDK gives each a `ClientRequestToken`, and DynamoDB answers a repeat of
 * a transaction it applied with the first's success.
 */

/** Random bytes for write ids, drawn many at a time: one `randomBytes` call costs more than the id. */
const pool = { bytes: Buffer.alloc(0), offset: 0 };
const ID_BYTES = 6;
const POOL_IDS = 512;

/**
 * A new write id: 48 random bits as 8 base64url characters. Two writes that meet at one item are a writer
 * and its rivals of the same moment, so the chance that a rival's id equals one's own is 2⁻⁴⁸ per rival.
 */
export function newWriteId(): string {
  if (pool.offset + ID_BYTES > pool.bytes.length) {
    pool.bytes = randomBytes(ID_BYTES * POOL_IDS);
    pool.offset = 0;
  }
  const id = pool.bytes.toString('base64url', pool.offset, pool.offset + ID_BYTES);
  pool.offset += ID_BYTES;
  return id;
}

/** The length of a write id (see {@link newWriteId}). */
export const WRITE_ID_LENGTH = 8;

/** How a conditional write ended: written (by this request, or by its own earlier attempt), or refused with the item that is there. */
export type ConditionalOutcome =
  | { readonly kind: 'written' }
  /** The condition failed on another writer's item: `item` is it (plain data), when DynamoDB returned one. */
  | { readonly kind: 'refused'; readonly item: Record<string, unknown> | undefined };

/**
 * Sends a conditional PutItem, UpdateItem or DeleteItem whose input asks for the item on a failed condition
 * (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`). A failed condition whose item `isOwn` recognises (it
 * carries this write's id: the SDK's retry met the write's first attempt) is the write's own success.
 * Any other failure leaves as a dynafold error (see `asRequestError`).
 */
export async function sendConditional(
  operation: string,
  tables: RequestTables,
  send: () => Promise<unknown>,
  isOwn: (item: Readonly<Record<string, unknown>>) => boolean,
): Promise<ConditionalOutcome> {
  try {
    await send();
    return { kind: 'written' };
  } catch (error) {
    if (!isConditionFailure(error)) throw asRequestError(operation, tables, error);
    const item = conditionFailureItem(error);
    return item !== undefined && isOwn(item) ? { kind: 'written' } : { kind: 'refused', item };
  }
}

/** The item a failed condition returned (`ALL_OLD`), as plain data: the document client leaves it as DynamoDB sent it. */
export function conditionFailureItem(error: unknown): Record<string, unknown> | undefined {
  const item = (error as { Item?: Record<string, AttributeValue> | undefined }).Item;
  return item === undefined ? undefined : unmarshall(item);
}

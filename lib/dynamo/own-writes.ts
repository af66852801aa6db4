import { randomBytes } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isAbortReason } from './abort';
import { asRequestError, errorName, isConditionFailure, type RequestTables } from './request';

/*
 * Why conditional writes carry an identity of their own. The SDK sends a request again when its answer is
 * lost (a timeout, a reset connection, a 500), although DynamoDB may have applied it. A conditional write
 * sent again then meets its own effect: its condition fails on the item it wrote itself, which looks just
 * like a rival's. So every conditional write that could meet itself stores an id on the item it writes and
 * asks for the item that fails its condition (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`, which costs
 * nothing); a failure whose item carries its id is its own success. This is the one place that decides it.
 * Transactions need none of that: the SDK gives each a `ClientRequestToken`, and DynamoDB answers a repeat
 * of a transaction it applied with the first's success.
 *
 * When the SDK gives up (its tries ran out after an answer was lost, say the last was throttled), the
 * write failed as far as the SDK knows, yet may have been applied. A write that can read its item then
 * reads it, strongly consistent (up to four times, when reads fail too), and a read that finds its id is its success (`landedDespite`): a write
 * that knows its item never fails for a request DynamoDB applied. Only a request still in flight at
 * DynamoDB when the read arrives (a client timeout shorter than the server's work) escapes it.
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

/** Recognises a write's own item, and reads the item (strongly consistent) after a failure. */
export interface OwnItem {
  readonly isOwn: (item: Readonly<Record<string, unknown>>) => boolean;
  readonly read?: (() => Promise<Readonly<Record<string, unknown>> | undefined>) | undefined;
}

/**
 * Sends a conditional PutItem, UpdateItem or DeleteItem whose input asks for the item on a failed condition
 * (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`). A failed condition whose item `own.isOwn` recognises
 * (it carries this write's id: the SDK's retry met the write's first attempt) is the write's own success,
 * and so is any other failure after which `own.read` finds the write's item (see `landedDespite`). Any
 * other failure leaves as a dynafold error (see `asRequestError`).
 */
export async function sendConditional(
  operation: string,
  tables: RequestTables,
  send: () => Promise<unknown>,
  own: OwnItem,
): Promise<ConditionalOutcome> {
  try {
    await send();
    return { kind: 'written' };
  } catch (error) {
    if (!isConditionFailure(error)) {
      if (await landedDespite(error, own)) return { kind: 'written' };
      throw asRequestError(operation, tables, error);
    }
    const item = conditionFailureItem(error);
    return item !== undefined && own.isOwn(item) ? { kind: 'written' } : { kind: 'refused', item };
  }
}

/** Failures that say the request was refused as a whole, on every attempt: nothing was written. */
const REFUSED = new Set(['ValidationException', 'ResourceNotFoundException', 'AccessDeniedException', 'SerializationException']);

/**
 * Whether a write that failed with `error` was applied all the same: the item `own.read` finds is its
 * own. `false` when the caller aborted (its signal cuts the read short too), when the failure says nothing
 * was written, when there is no way to read, or when four reads (50, 100 and 200 ms apart) fail as well.
 */
export async function landedDespite(error: unknown, own: OwnItem): Promise<boolean> {
  const name = errorName(error);
  if (own.read === undefined || isAbortReason(error) || (name !== undefined && REFUSED.has(name))) return false;
  for (let read = 1; ; read++) {
    try {
      const item = await own.read();
      return item !== undefined && own.isOwn(item);
    } catch (readError) {
      // A write that gives up here fails its call although it may be applied: the call's events then
      // stand written, and a redelivery finds them applied without a call that reports them. So each read
      // is worth a wait and another try, when the service is as troubled as the SDK's tries found it.
      if (read >= LANDED_READS || isAbortReason(readError)) return false;
      await wait(LANDED_READ_WAIT_MS * 2 ** (read - 1));
    }
  }
}

/** How many reads `landedDespite` makes before it gives up, and the wait before the second (doubled after each). */
const LANDED_READS = 4;
const LANDED_READ_WAIT_MS = 50;

/** The item a failed condition returned (`ALL_OLD`), as plain data: the document client leaves it as DynamoDB sent it. */
export function conditionFailureItem(error: unknown): Record<string, unknown> | undefined {
  const item = (error as { Item?: Record<string, AttributeValue> | undefined }).Item;
  return item === undefined ? undefined : unmarshall(item);
}

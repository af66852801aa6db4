import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * The item a conditional write found in its way, as plain data: DynamoDB returns it with the failure when
 * the write asked for it (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`). The document client leaves
 * it as DynamoDB sent it (attribute values); `undefined` when there was none or it was not asked for.
 */
export function conditionFailureItem(error: unknown): Record<string, unknown> | undefined {
  const item = (error as { Item?: Record<string, AttributeValue> | undefined } | undefined)?.Item;
  return item === undefined ? undefined : unmarshall(item);
}

/**
 * Whether a stored item (plain data, as read back) holds just what `written` wrote, attribute for
 * attribute: bytes by their content, sets whatever their order. The SDK retries a write whose answer was
 * lost after DynamoDB applied it; when the retry's condition fails on an item like this, it met its own.
 */
export function sameItem(written: Readonly<Record<string, unknown>>, stored: Readonly<Record<string, unknown>>): boolean {
  return sameValue(written, stored);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Uint8Array || b instanceof Uint8Array) return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0;
  if (a instanceof Set || b instanceof Set)
    return a instanceof Set && b instanceof Set && a.size === b.size && [...a].every((each: unknown) => b.has(each));
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((each, i) => sameValue(each, b[i]));
  if (isMap(a) || isMap(b)) {
    if (!isMap(a) || !isMap(b)) return false;
    // The document client leaves out undefined attributes (`removeUndefinedValues`): so does this.
    const keys = Object.keys(a).filter((key) => a[key] !== undefined);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && sameValue(a[key], b[key]));
  }
  return Object.is(a, b);
}

function isMap(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null;
}

import { ValidationError } from '../errors';

/** DynamoDB's limits on one TransactWriteItems request. */
export const TransactionLimits = {
  items: 100,
  itemBytes: 400 * 1024,
  transactionBytes: 4 * 1024 * 1024,
} as const;

/** DynamoDB's limits on key attribute values, in UTF-8 bytes, and on one BatchGetItem. */
export const KeyLimits = { partitionKeyBytes: 2048, sortKeyBytes: 1024, batchGetKeys: 100 } as const;

/** Refuses a key attribute value longer than DynamoDB allows, before anything is sent. */
export function assertKeyLength(what: string, value: string, kind: 'partition' | 'sort'): void {
  const limit = kind === 'partition' ? KeyLimits.partitionKeyBytes : KeyLimits.sortKeyBytes;
  const bytes = Buffer.byteLength(value);
  if (bytes > limit) {
    throw new ValidationError(`${what} is ${bytes} bytes as a ${kind} key, over DynamoDB's ${limit}: use a shorter value.`, [
      { path: [], message: `over ${limit} bytes` },
    ]);
  }
}

import { sizeOf, type IndexEntry, type Item, type ItemBook, type StoredItem } from './item-book';
import { TRANSACTION_FACTOR, itemWriteUnits, readUnits, writeUnits, type Consistency } from './pricing';

/** The request units AWS bills for one request. */
export interface Bill {
  readUnits: number;
  writeUnits: number;
  /** Parts of the bill the model had to estimate (see `approximate` below). */
  approximations: number;
}

/** How a request ended: its output, or the failed condition or cancelled transaction AWS still bills. */
export type Outcome = { readonly output: Item } | { readonly failed: 'condition' | 'cancelled' };

type Input = Record<string, unknown>;

const nothing = (): Bill => ({ readUnits: 0, writeUnits: 0, approximations: 0 });
const items = (value: unknown): Item[] => (Array.isArray(value) ? (value as Item[]) : []);
const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});
const outputOf = (outcome: Outcome): Item | undefined => ('output' in outcome ? outcome.output : undefined);

/**
 * Index writes of one table write, item before → item after (GSI page): an entry added or removed is one
 * write of its size, a changed index key two (the old entry deleted, the new one put), changed projected
 * attributes one, an entry left as it was none.
 */
export function indexWriteUnits(before: ReadonlyMap<string, IndexEntry>, after: ReadonlyMap<string, IndexEntry>): number {
  let units = 0;
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const old = before.get(name);
    const now = after.get(name);
    if (old === undefined || now === undefined) units += writeUnits((old ?? now)?.bytes ?? 0);
    else if (old.key !== now.key) units += writeUnits(old.bytes) + writeUnits(now.bytes);
    else if (old.content !== now.content) units += writeUnits(now.bytes);
  }
  return units;
}

/** A table write that happened: item units (the larger of before and after) plus its indexes' writes, then the book updated. */
function written(book: ItemBook, table: string, key: Item, before: StoredItem | undefined, after: Item | undefined, factor = 1): number {
  const units = itemWriteUnits(before?.bytes, after === undefined ? undefined : sizeOf(after)) * factor;
  const indexes = indexWriteUnits(before?.indexed ?? new Map(), book.entries(table, after));
  if (after === undefined) book.forget(table, key);
  else book.remember(table, after);
  return units + indexes;
}

function consistency(input: Input): Consistency {
  // A global secondary index is only ever read eventually consistently.
  return input['IndexName'] === undefined && input['ConsistentRead'] === true ? 'strong' : 'eventual';
}

/** Query and Scan: the items read summed before rounding; filtered-out items (ScannedCount − Count) at the returned items' mean size. */
function pageRead(book: ItemBook, input: Input, output: Item): Bill {
  const found = items(output['Items']);
  const bytes = found.reduce((sum, item) => sum + sizeOf(item), 0);
  const count = typeof output['Count'] === 'number' ? output['Count'] : found.length;
  const scanned = typeof output['ScannedCount'] === 'number' ? output['ScannedCount'] : count;
  const filtered = Math.max(0, scanned - count);
  if (input['IndexName'] === undefined) for (const item of found) book.remember(String(input['TableName']), item);
  const mean = found.length === 0 ? 0 : bytes / found.length;
  return { readUnits: readUnits(bytes + filtered * mean, consistency(input)), writeUnits: 0, approximations: filtered > 0 ? 1 : 0 };
}

function getItem(book: ItemBook, input: Input, output: Item): Bill {
  const item = output['Item'] as Item | undefined;
  if (item !== undefined) book.remember(String(input['TableName']), item);
  return { readUnits: readUnits(item === undefined ? 0 : sizeOf(item), consistency(input)), writeUnits: 0, approximations: 0 };
}

/** BatchGetItem: each item rounded on its own; a key found absent still bills one step. */
function batchGet(book: ItemBook, input: Input, output: Item): Bill {
  const bill = nothing();
  const responses = record(output['Responses']);
  const unprocessed = record(output['UnprocessedKeys']);
  for (const [table, request] of Object.entries(record(input['RequestItems']))) {
    const strong = record(request)['ConsistentRead'] === true ? 'strong' : 'eventual';
    const found = items(responses[table]);
    const absent = items(record(request)['Keys']).length - found.length - items(record(unprocessed[table])['Keys']).length;
    for (const item of found) {
      book.remember(table, item);
      bill.readUnits += readUnits(sizeOf(item), strong);
    }
    bill.readUnits += Math.max(0, absent) * readUnits(0, strong);
  }
  return bill;
}

function transactGet(book: ItemBook, input: Input, output: Item): Bill {
  const bill = nothing();
  const requests = items(input['TransactItems']);
  items(output['Responses']).forEach((response, i) => {
    const item = record(response)['Item'] as Item | undefined;
    const table = String(record(record(requests[i])['Get'])['TableName']);
    if (item !== undefined) book.remember(table, item);
    bill.readUnits += readUnits(item === undefined ? 0 : sizeOf(item), 'transactional');
  });
  return bill;
}

/**
 * PutItem, UpdateItem, DeleteItem. A failed condition bills the item that is there, at least one unit, and
 * writes nothing. An UpdateItem's item after it is its output when the request asked for ALL_NEW (the
 * middleware asks for it where the library asked for nothing).
 */
function singleWrite(book: ItemBook, operation: string, input: Input, outcome: Outcome): Bill {
  const table = String(input['TableName']);
  const key = (operation === 'PutItem' ? input['Item'] : input['Key']) as Item;
  const before = book.stored(table, key);
  const output = outputOf(outcome);
  if (output === undefined) return { readUnits: 0, writeUnits: itemWriteUnits(before?.bytes, undefined), approximations: 0 };
  if (operation === 'UpdateItem' && (input['ReturnValues'] !== 'ALL_NEW' || output['Attributes'] === undefined)) {
    return { readUnits: 0, writeUnits: itemWriteUnits(before?.bytes, undefined), approximations: 1 };
  }
  const after = operation === 'PutItem' ? key : operation === 'UpdateItem' ? (output['Attributes'] as Item) : undefined;
  return { readUnits: 0, writeUnits: written(book, table, key, before, after), approximations: 0 };
}

function batchWrite(book: ItemBook, input: Input, output: Item): Bill {
  const bill = nothing();
  const unprocessed = record(output['UnprocessedItems']);
  for (const [table, requests] of Object.entries(record(input['RequestItems']))) {
    const left = new Set(items(unprocessed[table]).map((r) => JSON.stringify(r)));
    for (const request of items(requests)) {
      if (left.has(JSON.stringify(request))) continue;
      const put = record(request['PutRequest'])['Item'] as Item | undefined;
      const key = put ?? (record(request['DeleteRequest'])['Key'] as Item);
      bill.writeUnits += written(book, table, key, book.stored(table, key), put);
    }
  }
  return bill;
}

/**
 * TransactWriteItems: every item twice, a ConditionCheck at the size of the item it checks (at least one
 * unit). The guide does not say what a cancelled transaction bills; the model bills it in full, as if it
 * had run (an upper bound), and writes nothing. An Update's item after it is not returned in a transaction:
 * it is taken to be no larger than before (exact for updates that do not grow an item).
 */
function transactWrite(book: ItemBook, input: Input, outcome: Outcome): Bill {
  const bill = nothing();
  for (const action of items(input['TransactItems'])) {
    const [kind, body] = Object.entries(action)[0] ?? ['', {}];
    const request = record(body);
    const table = String(request['TableName']);
    const key = (kind === 'Put' ? request['Item'] : request['Key']) as Item;
    const before = book.stored(table, key);
    if (kind === 'ConditionCheck' || kind === 'Update') {
      if (kind === 'Update') bill.approximations++;
      bill.writeUnits += itemWriteUnits(before?.bytes, undefined) * TRANSACTION_FACTOR;
      continue;
    }
    const after = kind === 'Put' ? key : undefined;
    bill.writeUnits +=
      'failed' in outcome
        ? itemWriteUnits(before?.bytes, after === undefined ? undefined : sizeOf(after)) * TRANSACTION_FACTOR
        : written(book, table, key, before, after, TRANSACTION_FACTOR);
  }
  return bill;
}

/**
 * The request units AWS bills for one request of `operation` (`PutItem`, `Query`, ...), from its input,
 * how it ended and the items `book` knows. `undefined` for an operation that is not billed per request
 * unit (DescribeTable, CreateTable, ...).
 */
export function billRequest(book: ItemBook, operation: string, input: Input, outcome: Outcome): Bill | undefined {
  const output = outputOf(outcome);
  switch (operation) {
    case 'GetItem':
      return output === undefined ? nothing() : getItem(book, input, output);
    case 'Query':
    case 'Scan':
      return output === undefined ? nothing() : pageRead(book, input, output);
    case 'BatchGetItem':
      return output === undefined ? nothing() : batchGet(book, input, output);
    case 'TransactGetItems':
      return output === undefined ? nothing() : transactGet(book, input, output);
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return singleWrite(book, operation, input, outcome);
    case 'BatchWriteItem':
      return output === undefined ? nothing() : batchWrite(book, input, output);
    case 'TransactWriteItems':
      return transactWrite(book, input, outcome);
    default:
      return undefined;
  }
}

/**
 * AWS's billing rules for DynamoDB request units, as pure functions of item sizes. Each rule names the page
 * of the DynamoDB developer guide (or the pricing page) it comes from, so a figure can be checked against it.
 */

/** Where each rule is written down. */
export const SOURCES = {
  /** Reads per 4 KB, writes per 1 KB, eventually consistent at half, a Query's items summed before rounding, UpdateItem at the larger size, failed conditions. */
  readWrite: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html',
  /** Every item of a transaction read or written twice (prepare and commit), ConditionCheck included. */
  transactions: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling',
  /** A write to a table also writes each global secondary index the item is (or was) in. */
  indexes: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes',
  /** On-demand prices per million request units. */
  prices: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
} as const;

/** A write request unit covers an item of up to 1 KB; larger items take one more unit per KB or part of one. */
export const WRITE_UNIT_BYTES = 1024;
/** A read request unit covers a strongly consistent read of up to 4 KB. */
export const READ_UNIT_BYTES = 4096;

/** How a read was made: eventually consistent reads bill half, transactional reads twice. */
export type Consistency = 'eventual' | 'strong' | 'transactional';

const READ_FACTOR: Readonly<Record<Consistency, number>> = { eventual: 0.5, strong: 1, transactional: 2 };

/**
 * On-demand prices of the DynamoDB Standard table class in us-east-1 (US East, N. Virginia), in US dollars
 * per million request units, as listed since the price cut of 1 November 2024. Other regions differ.
 */
export const ON_DEMAND_PRICES = { region: 'us-east-1', dollarsPerMillionWriteUnits: 0.625, dollarsPerMillionReadUnits: 0.125 } as const;

/** Write units of one item written (standard, not transactional): 1 KB steps, at least one. */
export function writeUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / WRITE_UNIT_BYTES));
}

/**
 * Read units of one read that touched `bytes`: 4 KB steps of the sum (a Query or Scan adds its items up
 * before rounding; GetItem and each item of BatchGetItem are rounded alone), at least one step even when
 * nothing was found, times the consistency's factor.
 */
export function readUnits(bytes: number, consistency: Consistency): number {
  return Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES)) * READ_FACTOR[consistency];
}

/** A transaction reads or writes every item twice: once to prepare it and once to commit it. */
export const TRANSACTION_FACTOR = 2;

/**
 * Write units of a PutItem or UpdateItem: the larger of the item before and after it (a Put that replaces
 * an item, an Update that shrinks one, are billed at the larger size). A write whose condition failed bills
 * the item that is there (at least one unit); a DeleteItem bills the deleted item.
 */
export function itemWriteUnits(beforeBytes: number | undefined, afterBytes: number | undefined): number {
  return writeUnits(Math.max(beforeBytes ?? 0, afterBytes ?? 0));
}

/** Dollars for `writeUnits` and `readUnits` at the on-demand prices. */
export function dollars(writeUnits: number, readUnits: number): number {
  return (writeUnits * ON_DEMAND_PRICES.dollarsPerMillionWriteUnits + readUnits * ON_DEMAND_PRICES.dollarsPerMillionReadUnits) / 1e6;
}

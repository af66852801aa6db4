/**
 * The low-level DynamoDB concerns the store, the projector and the feed share: requests and how their
 * failures are told apart, the document client, item sizes, DynamoDB's limits, table definitions and
 * compression. Internal: nothing here is part of the public API except what `lib/index.ts` re-exports.
 */
export { request, asRequestError, errorName, isConditionFailure, cancellationCodes, getItem } from './request';
export type { RequestTables } from './request';
export { documentClient } from './document-client';
export { sendBatchGet, sendGetItem, sendPutItem, sendQuery, sendUpdateItem } from './plain-requests';
export { withSignal, abortReason, isAbortReason, cancelled } from './abort';
export { tableFailure } from './failures';
export { pages } from './pages';
export { sameItem } from './stored-item';
export type { Page } from './pages';
export { itemFits, itemSize } from './item-size';
export { TransactionLimits, KeyLimits, assertKeyLength } from './limits';
export { keyedTableDefinition, CheckpointTable } from './tables';
export { compress, decompress } from './compression';
export { newWriteId, sendConditional, landedDespite, conditionFailureItem, WRITE_ID_LENGTH } from './own-writes';
export type { ConditionalOutcome, OwnItem } from './own-writes';
export type { CompressionOptions, CompressionAlgorithm } from './compression';

import * as root from 'dynafold';
import { DynafoldError, ErrorCodes, HttpStatuses, type ErrorCode, type ErrorsByCode } from 'dynafold';
import * as feed from 'dynafold/feed';
import { ErrorCatalogue } from '../lib/errors/catalogue';

/**
 * Every code, its HTTP status and its class, as 0.2's catalogue had them (read from that build): the
 * tables they are derived from now must give exactly these, in this order.
 */
const CATALOGUE: ReadonlyArray<readonly [code: string, status: number, error: string]> = [
  ['store.concurrency', 409, 'ConcurrencyError'],
  ['store.appendContention', 503, 'AppendContentionError'],
  ['store.idempotencyMismatch', 422, 'IdempotencyMismatchError'],
  ['store.validation', 400, 'ValidationError'],
  ['store.transactionLimit', 413, 'TransactionLimitError'],
  ['store.decode', 500, 'DecodeError'],
  ['store.upcast', 500, 'UpcastError'],
  ['store.eventVersionTooNew', 503, 'EventVersionTooNewError'],
  ['configuration', 500, 'ConfigurationError'],
  ['dynamo.request', 502, 'DynamoRequestError'],
  ['dynamo.tableNotFound', 500, 'TableNotFoundError'],
  ['dynamo.streamNotFound', 500, 'StreamNotFoundError'],
  ['dynamo.accessDenied', 500, 'AccessDeniedError'],
  ['projector.concurrentModification', 503, 'ConcurrentModificationError'],
  ['projector.identifierMissing', 500, 'StreamRecordIdentifierMissingError'],
  ['projector.multipleSources', 500, 'MultipleSourcesError'],
  ['projector.missingEvents', 500, 'MissingEventsError'],
  ['projector.rowTooLarge', 500, 'RowTooLargeError'],
  ['projector.messageTooLarge', 500, 'MessageTooLargeError'],
  ['projector.backfillFailed', 500, 'BackfillFailedError'],
  ['projector.waitTimeout', 504, 'ReadYourWritesTimeoutError'],
  ['feed.trimmed', 500, 'ChangeFeedTrimmedError'],
  ['feed.leaseHeld', 409, 'LeaseHeldError'],
  ['feed.leaseLost', 409, 'LeaseLostError'],
  ['feed.checkpointStore', 502, 'CheckpointStoreError'],
  ['feed.request', 502, 'ChangeFeedError'],
  ['feed.record', 500, 'StreamRecordError'],
  ['feed.replayRange', 500, 'ReplayRangeError'],
  ['local.start', 500, 'DynafoldError'],
  // Added with personal data and its erasure.
  ['erasure.subjectForgotten', 410, 'SubjectForgottenError'],
  ['erasure.keyMissing', 500, 'SubjectKeyMissingError'],
  ['erasure.keyNotLoaded', 500, 'SubjectKeyNotLoadedError'],
  ['erasure.tampered', 500, 'PersonalDataTamperedError'],
  ['erasure.keyProvider', 502, 'KeyProviderError'],
];

/** The error classes a module exports, by name. */
function errorClasses(module: Record<string, unknown>): string[] {
  return Object.entries(module)
    .filter(([, value]) => typeof value === 'function' && (value === DynafoldError || value.prototype instanceof DynafoldError))
    .map(([name]) => name)
    .sort();
}

test('the codes, their statuses and their classes are what they were, in the same order', () => {
  expect(ErrorCodes).toEqual(CATALOGUE.map(([code]) => code));
  expect(HttpStatuses).toEqual(Object.fromEntries(CATALOGUE.map(([code, status]) => [code, status])));
  expect(ErrorCodes.map((code) => [code, ErrorCatalogue[code].status, ErrorCatalogue[code].error])).toEqual(CATALOGUE);
});

test("the root exports every table's class and no error class the tables do not name", () => {
  expect(errorClasses(root)).toEqual([...new Set(CATALOGUE.map(([, , error]) => error))].sort());
});

test("'dynafold/feed' exports the classes of the feed's codes", () => {
  const feedClasses = CATALOGUE.filter(([code]) => code.startsWith('feed.')).map(([, , error]) => error);
  expect(errorClasses(feed)).toEqual(expect.arrayContaining(feedClasses));
});

/** The class each code narrowed to in 0.2 (its `ErrorsByCode` interface). */
interface ErrorsByCodeBefore {
  'store.concurrency': root.ConcurrencyError;
  'store.appendContention': root.AppendContentionError;
  'store.idempotencyMismatch': root.IdempotencyMismatchError;
  'store.validation': root.ValidationError;
  'store.transactionLimit': root.TransactionLimitError;
  'store.decode': root.DecodeError;
  'store.upcast': root.UpcastError;
  'store.eventVersionTooNew': root.EventVersionTooNewError;
  configuration: root.ConfigurationError;
  'dynamo.request': root.DynamoRequestError;
  'dynamo.tableNotFound': root.TableNotFoundError;
  'dynamo.streamNotFound': root.StreamNotFoundError;
  'dynamo.accessDenied': root.AccessDeniedError;
  'projector.concurrentModification': root.ConcurrentModificationError;
  'projector.identifierMissing': root.StreamRecordIdentifierMissingError;
  'projector.multipleSources': root.MultipleSourcesError;
  'projector.missingEvents': root.MissingEventsError;
  'projector.rowTooLarge': root.RowTooLargeError;
  'projector.messageTooLarge': root.MessageTooLargeError;
  'projector.backfillFailed': root.BackfillFailedError;
  'projector.waitTimeout': root.ReadYourWritesTimeoutError;
  'feed.trimmed': root.ChangeFeedTrimmedError;
  'feed.leaseHeld': root.LeaseHeldError;
  'feed.leaseLost': root.LeaseLostError;
  'feed.checkpointStore': root.CheckpointStoreError;
  'feed.request': root.ChangeFeedError;
  'feed.record': root.StreamRecordError;
  'feed.replayRange': root.ReplayRangeError;
  'local.start': DynafoldError;
  'erasure.subjectForgotten': root.SubjectForgottenError;
  'erasure.keyMissing': root.SubjectKeyMissingError;
  'erasure.keyNotLoaded': root.SubjectKeyNotLoadedError;
  'erasure.tampered': root.PersonalDataTamperedError;
  'erasure.keyProvider': root.KeyProviderError;
}

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

test('a guard on a code narrows to the same class as before', () => {
  // Compiles only while the codes are the same and each narrows to the same class.
  const sameCodes: Same<ErrorCode, keyof ErrorsByCodeBefore> = true;
  const sameClasses: { [C in ErrorCode]: Same<ErrorsByCode[C], ErrorsByCodeBefore[C]> } = Object.fromEntries(
    ErrorCodes.map((code) => [code, true]),
  ) as { [C in ErrorCode]: true };
  expect([sameCodes, ...Object.values(sameClasses)].every(Boolean)).toBe(true);
});

/** The errors of every module, one base class and a catalogue of codes. */
export { DynafoldError, ErrorCodes, HttpStatuses } from './dynafold-error';
export type { ErrorCode, ErrorFamily, ErrorOptions, ErrorsByCode, ProblemDetails } from './dynafold-error';
export {
  ConcurrencyError,
  AppendContentionError,
  IdempotencyMismatchError,
  ValidationError,
  TransactionLimitError,
  DecodeError,
  ConfigurationError,
  DynamoRequestError,
} from './store-errors';
export type { ValidationIssue } from './store-errors';
export {
  ConcurrentModificationError,
  StreamRecordIdentifierMissingError,
  MultipleSourcesError,
  MissingEventsError,
  RowTooLargeError,
  MessageTooLargeError,
  BackfillFailedError,
  ReadYourWritesTimeoutError,
} from './projector-errors';
export { TableNotFoundError, StreamNotFoundError, AccessDeniedError } from './dynamo-errors';
export { ChangeFeedTrimmedError, LeaseHeldError, LeaseLostError, CheckpointStoreError, ChangeFeedError, StreamRecordError } from './feed-errors';

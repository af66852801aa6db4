import type { ErrorTable } from './catalogue';

/** The store's errors: code, HTTP status and class. */
export const StoreCodes = {
  'store.concurrency': { status: 409, error: 'ConcurrencyError' },
  // Contention that outlasted the retry budget: transient, the client may try again.
  'store.appendContention': { status: 503, error: 'AppendContentionError', transient: true },
  // A key reused with another payload: the request can never succeed as sent (the IETF Idempotency-Key draft's 422).
  'store.idempotencyMismatch': { status: 422, error: 'IdempotencyMismatchError' },
  'store.validation': { status: 400, error: 'ValidationError' },
  'store.transactionLimit': { status: 413, error: 'TransactionLimitError' },
  'store.decode': { status: 500, error: 'DecodeError' },
  // The stored data is sound; the definition's upcast (or downcast) of it is not.
  'store.upcast': { status: 500, error: 'UpcastError' },
  // Written by newer code during a rolling deploy: transient, it reads once the new definition runs here too.
  'store.eventVersionTooNew': { status: 503, error: 'EventVersionTooNewError', transient: true },
  // Raised by every module's constructors; its code names no module (it came before the others).
  configuration: { status: 500, error: 'ConfigurationError' },
} as const satisfies ErrorTable;

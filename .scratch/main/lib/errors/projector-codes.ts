import type { ErrorTable } from './catalogue';

/** The projector's errors: code, HTTP status and class. */
export const ProjectorCodes = {
  // Lost every race for a row's write: transient, the row is brought forward by whoever won or by the next delivery.
  'projector.concurrentModification': { status: 503, error: 'ConcurrentModificationError', transient: true },
  'projector.identifierMissing': { status: 500, error: 'StreamRecordIdentifierMissingError' },
  'projector.multipleSources': { status: 500, error: 'MultipleSourcesError' },
  'projector.missingEvents': { status: 500, error: 'MissingEventsError' },
  'projector.rowTooLarge': { status: 500, error: 'RowTooLargeError' },
  'projector.messageTooLarge': { status: 500, error: 'MessageTooLargeError' },
  'projector.backfillFailed': { status: 500, error: 'BackfillFailedError' },
  // The write went through; the read model did not show it in time (the projector lags or is down).
  'projector.waitTimeout': { status: 504, error: 'ReadYourWritesTimeoutError', transient: true },
} as const satisfies ErrorTable;

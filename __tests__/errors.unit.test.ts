import {
  AppendContentionError,
  ChangeFeedTrimmedError,
  ConcurrencyError,
  ConfigurationError,
  DynafoldError,
  ErrorCodes,
  MultipleSourcesError,
  ValidationError,
  type ErrorCode,
} from 'dynafold';

describe('DynafoldError', () => {
  const concurrency = new ConcurrencyError('Order', 'o-1', 3, 5);
  const trimmed = new ChangeFeedTrimmedError('arn', 'shard-1', '42', 'gone');

  test('is() tells dynafold errors apart by code, narrowing to the payload, and by family', () => {
    const error: unknown = concurrency;
    expect(DynafoldError.is(error)).toBe(true);
    expect(DynafoldError.is(new Error('other'))).toBe(false);
    if (!DynafoldError.is(error, 'store.concurrency')) throw new Error('expected a concurrency error');
    expect(error.actualVersion).toBe(5); // narrowed: the payload is typed
    expect(DynafoldError.is(concurrency, 'store.')).toBe(true);
    expect(DynafoldError.is(concurrency, 'feed.')).toBe(false);
    expect(DynafoldError.is(trimmed, 'feed.')).toBe(true);
    expect(DynafoldError.is(trimmed, 'feed.leaseLost')).toBe(false);
  });

  test('every error keeps the error it wraps as cause, and its code is catalogued', () => {
    const cause = new Error('sdk');
    const errors: DynafoldError[] = [
      new ConcurrencyError('Order', 'o-1', 3, 5, { cause }),
      new AppendContentionError('Order', 'o-1', 4, 100, { cause }),
      new ValidationError('bad', [], { cause }),
      new ConfigurationError('bad option', { cause }),
      new MultipleSourcesError('p', { id: 'x' }, ['A#a', 'B#a'], { cause }),
      new ChangeFeedTrimmedError('arn', 'shard', undefined, 'gone', { cause }),
    ];
    for (const error of errors) {
      expect(error.cause).toBe(cause);
      expect(ErrorCodes).toContain(error.code);
    }
  });

  test('codes are a union: a switch over them is checked for exhaustiveness by the compiler', () => {
    // Adding a code without handling it here fails the type check (`never`).
    const family = (code: ErrorCode): string => {
      switch (code) {
        case 'store.concurrency':
        case 'store.appendContention':
        case 'store.idempotencyMismatch':
        case 'store.validation':
        case 'store.transactionLimit':
        case 'store.decode':
        case 'store.upcast':
        case 'store.eventVersionTooNew':
          return 'store';
        case 'projector.concurrentModification':
        case 'projector.identifierMissing':
        case 'projector.multipleSources':
        case 'projector.missingEvents':
        case 'projector.rowTooLarge':
        case 'projector.messageTooLarge':
        case 'projector.waitTimeout':
        case 'projector.backfillFailed':
          return 'projector';
        case 'feed.trimmed':
        case 'feed.leaseHeld':
        case 'feed.leaseLost':
        case 'feed.checkpointStore':
        case 'feed.request':
        case 'feed.record':
        case 'feed.replayRange':
          return 'feed';
        case 'erasure.subjectForgotten':
        case 'erasure.keyMissing':
        case 'erasure.keyNotLoaded':
        case 'erasure.tampered':
        case 'erasure.keyProvider':
          return 'erasure';
        case 'configuration':
        case 'dynamo.request':
        case 'dynamo.tableNotFound':
        case 'dynamo.streamNotFound':
        case 'dynamo.accessDenied':
        case 'local.start':
          return 'other';
        default: {
          const unhandled: never = code;
          throw new Error(`unhandled code ${String(unhandled)}`);
        }
      }
    };
    expect(new Set(ErrorCodes.map(family))).toEqual(new Set(['store', 'projector', 'feed', 'erasure', 'other']));
  });
});

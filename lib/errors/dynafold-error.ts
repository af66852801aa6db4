import type * as Errors from './index';

/** Every code a {@link DynafoldError} can carry, by module. Stable: search logs and switch on them. */
export const ErrorCodes = [
  'store.concurrency',
  'store.appendContention',
  'store.idempotencyMismatch',
  'store.validation',
  'store.transactionLimit',
  'store.decode',
  'configuration',
  'dynamo.request',
  'dynamo.tableNotFound',
  'dynamo.streamNotFound',
  'dynamo.accessDenied',
  'projector.concurrentModification',
  'projector.identifierMissing',
  'projector.multipleSources',
  'projector.missingEvents',
  'projector.rowTooLarge',
  'projector.messageTooLarge',
  'projector.backfillFailed',
  'projector.waitTimeout',
  'feed.trimmed',
  'feed.leaseHeld',
  'feed.leaseLost',
  'feed.checkpointStore',
  'feed.request',
  'feed.record',
  'local.start',
] as const;

/** A dynafold error code. */
export type ErrorCode = (typeof ErrorCodes)[number];

/** The module part of a code (`'store.'` for `'store.concurrency'`), to test for a whole family. */
export type ErrorFamily = `${Extract<ErrorCode, `${string}.${string}`> extends `${infer F}.${string}` ? F : never}.`;

/** The class behind each code, so that a guard on a code narrows to its payload. */
export interface ErrorsByCode {
  'store.concurrency': Errors.ConcurrencyError;
  'store.appendContention': Errors.AppendContentionError;
  'store.idempotencyMismatch': Errors.IdempotencyMismatchError;
  'store.validation': Errors.ValidationError;
  'store.transactionLimit': Errors.TransactionLimitError;
  'store.decode': Errors.DecodeError;
  configuration: Errors.ConfigurationError;
  'dynamo.request': Errors.DynamoRequestError;
  'dynamo.tableNotFound': Errors.TableNotFoundError;
  'dynamo.streamNotFound': Errors.StreamNotFoundError;
  'dynamo.accessDenied': Errors.AccessDeniedError;
  'projector.concurrentModification': Errors.ConcurrentModificationError;
  'projector.identifierMissing': Errors.StreamRecordIdentifierMissingError;
  'projector.multipleSources': Errors.MultipleSourcesError;
  'projector.missingEvents': Errors.MissingEventsError;
  'projector.rowTooLarge': Errors.RowTooLargeError;
  'projector.messageTooLarge': Errors.MessageTooLargeError;
  'projector.backfillFailed': Errors.BackfillFailedError;
  'projector.waitTimeout': Errors.ReadYourWritesTimeoutError;
  'feed.trimmed': Errors.ChangeFeedTrimmedError;
  'feed.leaseHeld': Errors.LeaseHeldError;
  'feed.leaseLost': Errors.LeaseLostError;
  'feed.checkpointStore': Errors.CheckpointStoreError;
  'feed.request': Errors.ChangeFeedError;
  'feed.record': Errors.StreamRecordError;
  'local.start': DynafoldError;
}

/**
 * The HTTP status each code answers with when a service maps errors to responses (`DynafoldError.status`):
 * the caller's fault is 4xx, the store's or the deployment's is 5xx. `store.concurrency` is 409, or 412
 * when the request carried a precondition (If-Match), see {@link DynafoldError.httpStatus}.
 */
export const HttpStatuses: { readonly [C in ErrorCode]: number } = {
  'store.concurrency': 409,
  // Contention that outlasted the retry budget: transient, the client may try again.
  'store.appendContention': 503,
  // A key reused with another payload: the request can never succeed as sent (the IETF Idempotency-Key draft's 422).
  'store.idempotencyMismatch': 422,
  'store.validation': 400,
  'store.transactionLimit': 413,
  'store.decode': 500,
  configuration: 500,
  // DynamoDB failed or refused the request: an upstream failure.
  'dynamo.request': 502,
  // A table or stream missing, or refused to our credentials: the deployment is misconfigured. Not 404 or
  // 403, which would tell the API's client that its resource is missing or its access refused.
  'dynamo.tableNotFound': 500,
  'dynamo.streamNotFound': 500,
  'dynamo.accessDenied': 500,
  'projector.concurrentModification': 503,
  'projector.identifierMissing': 500,
  'projector.multipleSources': 500,
  'projector.missingEvents': 500,
  'projector.rowTooLarge': 500,
  'projector.messageTooLarge': 500,
  'projector.backfillFailed': 500,
  // The write went through; the read model did not show it in time (the projector lags or is down).
  'projector.waitTimeout': 504,
  'feed.trimmed': 500,
  'feed.leaseHeld': 409,
  'feed.leaseLost': 409,
  'feed.checkpointStore': 502,
  'feed.request': 502,
  'feed.record': 500,
  'local.start': 500,
};

/** An RFC 9457 Problem Details document for a {@link DynafoldError}, with its code and payload as extension members. */
export interface ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance?: string | undefined;
  readonly code: ErrorCode;
  readonly [extension: string]: unknown;
}

/** Fields of an error that are not its payload. */
const NOT_PAYLOAD = new Set(['name', 'message', 'stack', 'cause', 'code']);

/** What every error constructor takes besides its payload: the error it wraps. */
export interface ErrorOptions {
  readonly cause?: unknown;
}

/**
 * Every error dynafold raises is a {@link DynafoldError} with a stable `code`, searchable in logs.
 * Subclasses carry the payload a caller needs to react (versions, ids, owners) and keep the
 * underlying SDK error as `cause`.
 *
 * @example
 * ```ts
 * try { await Orders.append(id, events, { expectedVersion: 3 }) }
 * catch (e) { if (DynafoldError.is(e, 'store.concurrency')) console.log(e.actualVersion) }
 * ```
 */
export class DynafoldError extends Error {
  /** Stable machine-readable code, e.g. `'store.concurrency'`. */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }

  /** The HTTP status this error answers with (see {@link HttpStatuses}). */
  get status(): number {
    return HttpStatuses[this.code];
  }

  /**
   * The HTTP status, knowing whether the request carried a precondition: a concurrency conflict on a
   * request with If-Match is 412 Precondition Failed rather than 409 Conflict.
   */
  httpStatus(request: { readonly precondition?: boolean | undefined } = {}): number {
    return this.code === 'store.concurrency' && request.precondition === true ? 412 : this.status;
  }

  /** The payload a caller reacts to (versions, ids, owners…): the subclass's own fields. */
  get details(): Readonly<Record<string, unknown>> {
    return Object.fromEntries(Object.entries(this).filter(([key, value]) => !NOT_PAYLOAD.has(key) && value !== undefined));
  }

  /** Keeps what `JSON.stringify` of an Error drops: name, code, message, status, the payload and the cause's name and message. */
  toJSON(): Record<string, unknown> {
    const cause = this.cause instanceof Error ? { name: this.cause.name, message: this.cause.message } : this.cause;
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      ...this.details,
      ...(cause === undefined ? {} : { cause }),
    };
  }

  /**
   * The error as RFC 9457 Problem Details (`application/problem+json`): `type` names the code
   * (`urn:dynafold:error:<code>` unless `typeBase` gives a documentation URL to append it to), `title`
   * the class and `code` the code. A client's error (4xx) also carries the message as `detail` and the
   * payload as extension members: they describe what the client sent. A server's error (5xx) carries a
   * generic `detail` and no payload: its message and payload name
   * tables, operations and what DynamoDB answered (account ids, role ARNs), which are for the logs. The
   * cause is never included.
   */
  toProblem(
    options: { readonly instance?: string | undefined; readonly precondition?: boolean | undefined; readonly typeBase?: string | undefined } = {},
  ): ProblemDetails {
    const status = this.httpStatus(options);
    const serverError = status >= 500;
    return {
      type: options.typeBase === undefined ? `urn:dynafold:error:${this.code}` : `${options.typeBase}${this.code}`,
      title: this.name,
      status,
      detail: serverError ? serverProblemDetail(this.code, status) : this.message,
      ...(options.instance === undefined ? {} : { instance: options.instance }),
      code: this.code,
      ...(serverError ? {} : this.details),
    };
  }

  /**
   * Whether `error` is a dynafold error: of any code, of one code (narrowing to its class), or of a
   * family (`'store.'`, `'feed.'` …).
   *
   * @example
   * ```ts
   * if (DynafoldError.is(error, 'store.concurrency')) return reply.code(409).send({ actual: error.actualVersion })
   * if (DynafoldError.is(error, 'feed.')) health.fail(error.code)
   * ```
   */
  static is<C extends ErrorCode>(error: unknown, code: C): error is ErrorsByCode[C];
  static is(error: unknown, family?: ErrorFamily): error is DynafoldError;
  static is(error: unknown, code?: string): error is DynafoldError {
    if (!(error instanceof DynafoldError)) return false;
    if (code === undefined) return true;
    return code.endsWith('.') ? error.code.startsWith(code) : error.code === code;
  }
}

/**
 * The `detail` a server's error (5xx) answers over HTTP in place of its message, by code where a client can
 * do more than retry, else by status. What went wrong in full is logged by the service, never sent.
 */
const ServerProblemDetails: {
  readonly byCode: Partial<Readonly<Record<ErrorCode, string>>>;
  readonly byStatus: Readonly<Record<number, string>>;
  readonly otherwise: string;
} = {
  byCode: {
    'projector.waitTimeout': 'The change is stored, but the read model did not show it in time: read it again later instead of repeating the change.',
  },
  byStatus: {
    502: 'A request to the database failed. The error is logged; try again later.',
    503: 'The service is busy. Try again later.',
    504: 'The service did not finish in time. The error is logged; try again later.',
  },
  otherwise: 'The service failed to handle the request. The error is logged.',
};

function serverProblemDetail(code: ErrorCode, status: number): string {
  return ServerProblemDetails.byCode[code] ?? ServerProblemDetails.byStatus[status] ?? ServerProblemDetails.otherwise;
}

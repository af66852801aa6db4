import { HttpStatuses, type ErrorCode, type ErrorFamily, type ErrorsByCode } from './catalogue';

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

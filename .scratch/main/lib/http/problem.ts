import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import { DynafoldError, type ProblemDetails, type ValidationIssue } from '../errors';
import { ServiceDefaults } from './defaults';

/** How errors become responses: see {@link problemOf}. */
export interface ProblemOptions {
  /**
   * Where a dynafold error's `type` points: `<typeBase><code>` (e.g. a page of your API's docs).
   * @defaultValue `urn:dynafold:error:` ({@link ServiceDefaults.problems})
   */
  readonly typeBase?: string | undefined;
}

/** A response for an error: its status and an RFC 9457 Problem Details body. */
export interface ProblemResponse {
  readonly status: number;
  readonly body: ProblemDetails | GenericProblem;
}

/** The Problem Details of an error that is not dynafold's (`type: 'about:blank'`). */
export interface GenericProblem {
  readonly type: 'about:blank';
  readonly title: string;
  readonly status: number;
  readonly detail?: string | undefined;
  readonly instance?: string | undefined;
  /** A request your schema refused (a zod error, Fastify's schema validation): each field's path and what is wrong. */
  readonly issues?: ReadonlyArray<ValidationIssue> | undefined;
}

/** The media type of a Problem Details body. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * The response for an error thrown while serving a request:
 * - a `DynafoldError` answers its own status (409, or 412 when the request carried `If-Match`; see
 *   `HttpStatuses`) and `toProblem()`: a 4xx with its message and payload, a 5xx with a generic detail;
 * - a zod error (a request body parsed with `schema.parse`, by `zod` or `zod/mini`) or a framework's schema
 *   validation error is a 400 with each issue's field path in `issues`, as `type: 'about:blank'` with no
 *   `code`: it is your schema's verdict, not the store's (`store.validation` is for what dynafold refused);
 * - another error that carries a 4xx `statusCode` or `status` (a body that is not JSON, say) keeps it, with
 *   its message;
 * - anything else is a 500 that tells the client nothing about the internals.
 */
export function problemOf(
  error: unknown,
  request: { readonly instance?: string | undefined; readonly precondition?: boolean | undefined },
  options: ProblemOptions = {},
): ProblemResponse {
  if (error instanceof DynafoldError) {
    const body = error.toProblem({ ...request, typeBase: options.typeBase ?? ServiceDefaults.problems.typeBase });
    return { status: body.status, body };
  }
  const instance = request.instance === undefined ? {} : { instance: request.instance };
  const issues = validationIssuesOf(error);
  if (issues !== undefined) {
    const where = issues.map((issue) => `${issue.path.length === 0 ? '(body)' : issue.path.join('.')}: ${issue.message}`).join('; ');
    const detail = `The request is invalid: ${where}. Fix these fields and send it again.`;
    return { status: 400, body: { type: 'about:blank', title: 'Bad Request', status: 400, detail, ...instance, issues } };
  }
  const status = clientStatusOf(error);
  if (status !== undefined) {
    const detail = error instanceof Error ? { detail: error.message } : {};
    return { status, body: { type: 'about:blank', title: STATUS_CODES[status] ?? 'Client Error', status, ...detail, ...instance } };
  }
  return { status: 500, body: { type: 'about:blank', title: 'Internal Server Error', status: 500, ...instance } };
}

/**
 * The issues of a zod error (zod's own check, `$ZodError`, which knows `zod` and `zod/mini` errors from
 * whichever copy of zod 4 threw them) or of Fastify's schema validation (`validation` with `instancePath`
 * JSON pointers).
 */
function validationIssuesOf(error: unknown): ValidationIssue[] | undefined {
  if (error instanceof z.core.$ZodError) {
    return error.issues.map((issue) => ({
      path: (issue.path ?? []).map((part) => (typeof part === 'symbol' ? String(part) : part)),
      message: String(issue.message),
    }));
  }
  const validation = error instanceof Error ? (error as { validation?: unknown }).validation : undefined;
  if (Array.isArray(validation)) {
    return validation.map(
      (issue: {
        instancePath?: string | undefined;
        message?: string | undefined;
        params?: { missingProperty?: string | undefined } | undefined;
      }) => ({
        path: pointerPath(issue.instancePath ?? '', issue.params?.missingProperty),
        message: String(issue.message),
      }),
    );
  }
  return undefined;
}

/** `/items/0/sku` → `['items', 0, 'sku']`, plus a missing property's name. */
function pointerPath(pointer: string, missing: string | undefined): Array<string | number> {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  return missing === undefined ? parts : [...parts, missing];
}

/** A 4xx status an error carries itself (`statusCode` in Fastify, `status` in Express's body parsers). */
function clientStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { statusCode, status } = error as { statusCode?: unknown; status?: unknown };
  const carried = typeof statusCode === 'number' ? statusCode : status;
  return typeof carried === 'number' && carried >= 400 && carried <= 499 ? carried : undefined;
}

/** The answer to a request no route serves: 404 Problem Details naming the method and path. */
export function notFoundProblem(request: { readonly method: string; readonly instance: string }): ProblemResponse {
  const path = request.instance.split('?')[0] ?? request.instance;
  return {
    status: 404,
    body: { type: 'about:blank', title: 'Not Found', status: 404, detail: `No route serves ${request.method} ${path}.`, instance: request.instance },
  };
}

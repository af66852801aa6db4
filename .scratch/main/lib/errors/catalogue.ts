import type { DynafoldError } from './dynafold-error';
import type * as DynamoErrors from './dynamo-errors';
import { DynamoCodes } from './dynamo-codes';
import type * as FeedErrors from './feed-errors';
import { FeedCodes } from './feed-codes';
import type * as ProjectorErrors from './projector-errors';
import { ProjectorCodes } from './projector-codes';
import type * as StoreErrors from './store-errors';
import { StoreCodes } from './store-codes';

/** Every error class of `lib/errors` by name (types only: the tables name classes, they never load them). */
type ErrorClasses = typeof StoreErrors &
  typeof DynamoErrors &
  typeof ProjectorErrors &
  typeof FeedErrors & { readonly DynafoldError: typeof DynafoldError };

/**
 * The name of an error class, as a table row gives it. (Every value those files export is an error class;
 * asking the compiler to check that here would make the codes' type depend on itself.)
 */
export type ErrorClassName = keyof ErrorClasses;

/**
 * One row of a module's table of errors: the HTTP status its code answers with when a service maps errors
 * to responses (the caller's fault is 4xx, the store's or the deployment's 5xx), and the class that raises it.
 */
export interface ErrorRow {
  readonly status: number;
  readonly error: ErrorClassName;
  /**
   * Whether trying again later can succeed with no change of code, data or deployment (see
   * {@link isTransient}): `true`, or `'cause'` when that depends on the failure the error wraps (a
   * DynamoDB request's). Absent: not transient.
   */
  readonly transient?: true | 'cause';
}

/** A module's table of errors, by code. */
export type ErrorTable = Readonly<Record<string, ErrorRow>>;

/**
 * `dynafold/local`'s one error. Its class (`DynamoLocalStartError`) lives with the embedded DynamoDB Local,
 * which this module does not import: the code narrows to the base class.
 */
const LocalCodes = {
  'local.start': { status: 500, error: 'DynafoldError' },
} as const satisfies ErrorTable;

/** Every module's table in one, in the order `ErrorCodes` lists them. */
export const ErrorCatalogue = { ...StoreCodes, ...DynamoCodes, ...ProjectorCodes, ...FeedCodes, ...LocalCodes } as const satisfies ErrorTable;

/** A dynafold error code. */
export type ErrorCode = keyof typeof ErrorCatalogue;

/** Every code a {@link DynafoldError} can carry, by module. Stable: search logs and switch on them. */
export const ErrorCodes = Object.keys(ErrorCatalogue) as ReadonlyArray<ErrorCode>;

/** The module part of a code (`'store.'` for `'store.concurrency'`), to test for a whole family. */
export type ErrorFamily = `${Extract<ErrorCode, `${string}.${string}`> extends `${infer F}.${string}` ? F : never}.`;

/** The class behind each code, so that a guard on a code narrows to its payload. */
export type ErrorsByCode = { [C in ErrorCode]: InstanceType<ErrorClasses[(typeof ErrorCatalogue)[C]['error']]> };

/**
 * The HTTP status each code answers with when a service maps errors to responses (`DynafoldError.status`):
 * the caller's fault is 4xx, the store's or the deployment's is 5xx. `store.concurrency` is 409, or 412
 * when the request carried a precondition (If-Match), see {@link DynafoldError.httpStatus}.
 */
export const HttpStatuses = Object.fromEntries(ErrorCodes.map((code) => [code, ErrorCatalogue[code].status])) as {
  readonly [C in ErrorCode]: number;
};

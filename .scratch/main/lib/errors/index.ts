/**
 * The errors of every module, one base class and a catalogue of codes. Each module's error file holds
 * only public error classes (and their payloads' types) and is exported whole; the module's table
 * (`*-codes.ts`) gives each code its HTTP status and class. An error is added by its class and its row.
 */
export { DynafoldError } from './dynafold-error';
export type { ErrorOptions, ProblemDetails } from './dynafold-error';
export { ErrorCodes, HttpStatuses } from './catalogue';
export type { ErrorCode, ErrorFamily, ErrorsByCode } from './catalogue';
export { isTransient } from './transient';
export * from './store-errors';
export * from './dynamo-errors';
export * from './projector-errors';
export * from './feed-errors';

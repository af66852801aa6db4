import type { z } from 'zod';
import { DecodeError, type ValidationIssue } from '../errors';

/** A zod error's issues as dynafold reports them: paths of strings and numbers. */
export function zodIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: issue.message }));
}

/** Issues in event data as one line for a message: `data.price: expected number; data.sku: required`. */
export function describeIssues(issues: ReadonlyArray<ValidationIssue>): string {
  return issues.map((issue) => `${['data', ...issue.path].join('.')}: ${issue.message}`).join('; ');
}

/**
 * Stored data parsed with its own version's schema: a refusal means the item is broken, a {@link DecodeError}
 * that says `where` the event is.
 */
export function parsedData(
  where: string,
  streamName: string,
  reading: { readonly type: string; readonly schema: z.ZodType },
  raw: unknown,
  storedVersion?: number,
): unknown {
  const parsed = reading.schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = zodIssues(parsed.error);
  const at = storedVersion === undefined ? '' : ` at type version ${storedVersion}`;
  throw new DecodeError(`${where} (${reading.type}${at}) does not match its schema: ${describeIssues(issues)}.`, streamName, issues, {
    cause: parsed.error,
  });
}

import { ValidationError } from '../errors';

/**
 * The strong ETag of a stream version (`"3"`): the version a client sends back in `If-Match` to append
 * only if nothing changed meanwhile.
 *
 * @example
 * ```ts
 * reply.header('ETag', etagOf(result.version))
 * ```
 */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/**
 * The `expectedVersion` an `If-Match` header asks for: `"3"` → 3; no header or `*` → `undefined` (append at
 * the head). A weak tag, a list of tags or anything else is the client's `ValidationError` (400). A strong
 * tag of digits past any version a stream can reach is a version all the same: the append answers it as
 * it answers a stale one, with a `ConcurrencyError` (412); past 2^53 it stands as `Number.MAX_SAFE_INTEGER`.
 *
 * @example
 * ```ts
 * await Orders.append(id, events, { expectedVersion: expectedVersionOf(request.headers['if-match']) })
 * ```
 */
export function expectedVersionOf(ifMatch: string | ReadonlyArray<string> | undefined): number | undefined {
  const header = Array.isArray(ifMatch) ? ifMatch.join(', ') : (ifMatch as string | undefined);
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*"(\d+)"\s*$/.exec(header);
  if (match?.[1] === undefined) {
    throw new ValidationError(`Expected If-Match to be one strong ETag holding a stream version, such as "3", got ${JSON.stringify(header)}.`, [
      { path: ['headers', 'if-match'], message: 'not a strong ETag of a version' },
    ]);
  }
  return Math.min(Number(match[1]), Number.MAX_SAFE_INTEGER);
}

/** Whether the request carried a precondition, which turns a concurrency conflict's 409 into 412. */
export function hasPrecondition(headers: Readonly<Record<string, unknown>>): boolean {
  return headers['if-match'] !== undefined;
}

/**
 * Whether `text` is well-formed UTF-16 (`String.prototype.isWellFormed`, which ES2022's types lack): no
 * lone surrogate. DynamoDB stores text as UTF-8, where a lone surrogate becomes U+FFFD, so two different
 * ill-formed strings would be stored as one.
 */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

// With the `u` flag a surrogate pair is one code point, so only a surrogate standing alone matches.
const LONE_SURROGATE = /\p{Surrogate}/u;

/** What to say of an ill-formed string, in a message that names where it is. */
export const ILL_FORMED =
  'holds a lone surrogate (ill-formed UTF-16), which DynamoDB stores as U+FFFD: use a well-formed string (`text.toWellFormed()` replaces them)';

/**
 * What a stored record or a span keeps of an error, the same everywhere: the parked record and the failed
 * attempts a row counts, the events it skipped, and a failed span. Its name and code say what failed; its
 * message, which the code that threw wrote and may hold anything, is cut short (and a rebuild clears the
 * rows' copies: see the personal data guide).
 */
export interface RecordedError {
  /** The error's name (`Error`, `TypeError`, `ValidationError`). */
  readonly name: string;
  /** Its code, when it carries one as a string: a `DynafoldError`'s (`store.decode`), Node's (`ECONNRESET`). */
  readonly code?: string;
  /** Its message, cut to {@link RecordedErrorLimits.messageChars} characters. */
  readonly message: string;
}

/** How much of an error a record keeps. */
export const RecordedErrorLimits = {
  /** Characters of the message kept (the last of them `…` when it was cut). */
  messageChars: 500,
} as const;

/** What a record keeps of `error` (anything thrown, an `Error` or not). */
export function recordedError(error: unknown): RecordedError {
  if (!(error instanceof Error)) return { name: 'Error', message: boundedMessage(String(error)) };
  const code = (error as { readonly code?: unknown }).code;
  return { name: error.name, ...(typeof code === 'string' ? { code } : {}), message: boundedMessage(error.message) };
}

/** `message` cut to `RecordedErrorLimits.messageChars` characters, never through a surrogate pair. */
export function boundedMessage(message: string): string {
  const limit = RecordedErrorLimits.messageChars;
  if (message.length <= limit) return message;
  let end = limit - 1;
  const last = message.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${message.slice(0, end)}…`;
}

import { recordedError, type RecordedError } from '../util';

/** What a failed span records of an exception (OpenTelemetry's `Exception` shape). */
export interface RecordedException extends RecordedError {
  /** The stack's frames under the recorded name and message; absent when the error has none. */
  readonly stack?: string;
}

/**
 * What a failed span records of `error`: its name and code, and its message cut short as a row's records
 * cut it (`recordedError`), the stack's frames kept under that cut message. The message is written by the
 * code that threw and may hold personal data, which a trace backend keeps whatever the key table forgets;
 * the guide says to keep it out of messages.
 */
export function recordedException(error: unknown): RecordedException {
  const recorded = recordedError(error);
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
  // V8's stack repeats the whole message before its first frame: only the frames are kept.
  const frames = stack.search(/\n\s+at /);
  return frames < 0 ? recorded : { ...recorded, stack: `${recorded.name}: ${recorded.message}${stack.slice(frames)}` };
}

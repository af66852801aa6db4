import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Reasons of aborted signals that a request rejected with, so that `asRequestError` lets them through unwrapped. */
const abortReasons = new WeakSet<object>();

/**
 * The document client as one call sees it: every request it sends carries the caller's `signal`, and a
 * request cut short by it rejects with the signal's reason (as `fetch` does), not with a request error.
 * The client itself is shared by every call of a stream or a model, so the signal can't be set on it;
 * a view per call saves threading the signal through every function a call passes on its way.
 */
export function withSignal(documents: DynamoDBDocumentClient, signal: AbortSignal | undefined): DynamoDBDocumentClient {
  if (signal === undefined) return documents;
  const view = Object.create(documents) as DynamoDBDocumentClient;
  const send = (command: Parameters<DynamoDBDocumentClient['send']>[0], options?: { abortSignal?: AbortSignal | undefined }) => {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    const abortSignal = options?.abortSignal === undefined ? signal : AbortSignal.any([signal, options.abortSignal]);
    return documents.send(command, { ...options, abortSignal }).catch((error: unknown) => {
      throw signal.aborted ? abortReason(signal) : error;
    });
  };
  Object.defineProperty(view, 'send', { value: send });
  return view;
}

/** The reason `signal` was aborted with, remembered as one (see {@link isAbortReason}). */
export function abortReason(signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  if (!isPrimitive(reason)) abortReasons.add(reason);
  return reason;
}

/** Whether the caller cancelled (a function, so that a check after an earlier one is not narrowed away). */
export function cancelled(signal: AbortSignal | undefined): signal is AbortSignal {
  return signal?.aborted === true;
}

/**
 * Whether `error` is the reason of a caller's aborted signal (passed through as it is, never wrapped or
 * retried). An object is one if a signal gave it; a string, number or other primitive always is: the SDK
 * only ever rejects with `Error`s, so a request rejecting with a primitive was cut short by a signal whose
 * reason it is (`controller.abort('shutdown')`), and a primitive can't be remembered in a `WeakSet`.
 */
export function isAbortReason(error: unknown): boolean {
  return isPrimitive(error) || abortReasons.has(error);
}

function isPrimitive(value: unknown): value is string | number | bigint | boolean | symbol | null | undefined {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

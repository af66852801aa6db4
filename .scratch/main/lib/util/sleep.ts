import { setTimeout as wait } from 'node:timers/promises';

/**
 * Resolves after `ms`, or rejects with the signal's reason as soon as it aborts (as every cancelled call
 * of the package does, so a wait between retries ends a call the same way a request in flight does).
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await wait(ms, undefined, signal === undefined ? undefined : { signal });
  } catch (error) {
    throw signal?.aborted === true ? signal.reason : error;
  }
}

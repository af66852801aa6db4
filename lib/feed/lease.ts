import { CheckpointStoreError, DynafoldError, LeaseHeldError, LeaseLostError } from '../errors';
import { backoffDelay, type Backoff, sleep, log, type Logger } from '../util';
import { type CheckpointStore, type FeedKey, leaseWaitDelay, renewalDeadline } from './checkpoints';
import type { ResolvedLease } from './options';
import { countLeaseChange } from '../telemetry';

/** Settings of a {@link FeedLease}. */
export interface FeedLeaseOptions {
  readonly store: CheckpointStore;
  readonly key: FeedKey;
  readonly lease: ResolvedLease;
  readonly backoff: Backoff;
  readonly logger: Logger | undefined;
  readonly now?: (() => number) | undefined;
}

/**
 * The feed's lease over its lifetime: taken at the start (or waited for), renewed every `renewEveryMs`,
 * released at the end. Once lost (taken by another owner, or not renewed in time) it stays lost, and
 * `assertHeld()` throws `LeaseLostError`, so that no acknowledgement writes anything more.
 */
export class FeedLease {
  private expiresAtMs = 0;
  private lostError: LeaseLostError | undefined;
  private released = false;
  private readonly now: () => number;

  constructor(private readonly options: FeedLeaseOptions) {
    this.now = options.now ?? Date.now;
  }

  get owner(): string {
    return this.options.lease.owner;
  }

  get expiresAt(): number {
    return this.expiresAtMs;
  }

  get lost(): boolean {
    return this.lostError !== undefined;
  }

  /**
   * Throws `LeaseLostError` once the lease is lost, or once it has lapsed on this host's clock while held:
   * a process paused past its lease (SIGSTOP, a long GC, a suspended VM) wakes up before its next renewal
   * could find out that another owner took over, and must not acknowledge anything in between.
   */
  assertHeld(): void {
    if (this.lostError === undefined && !this.released && this.expiresAtMs > 0 && this.now() >= this.expiresAtMs) {
      this.lose(new LeaseLostError(undefined, 'it lapsed before it could be renewed'));
    }
    if (this.lostError !== undefined) throw this.lostError;
  }

  /** Takes the lease; with `onHeld: 'wait'` retries until it is released or lapses. */
  async acquire(signal: AbortSignal): Promise<void> {
    const { store, key, lease } = this.options;
    for (;;) {
      const result = await store.acquireLease(key, { owner: lease.owner, durationMs: lease.durationMs, now: this.now() });
      if (result.acquired) {
        this.expiresAtMs = result.expiresAt;
        countLeaseChange(key.consumer, 'acquired');
        log(this.options.logger, 'info', { owner: lease.owner, expiresAt: result.expiresAt }, 'change feed lease taken');
        return;
      }
      const holder = result.holder ?? { owner: 'unknown', expiresAt: this.now() };
      if (lease.onHeld === 'fail') throw new LeaseHeldError(holder.owner, holder.expiresAt);
      log(this.options.logger, 'info', { holder: holder.owner, expiresAt: holder.expiresAt }, 'change feed lease held by another owner, waiting');
      await sleep(leaseWaitDelay(result.holder, this.now(), lease.renewEveryMs), signal);
    }
  }

  /**
   * Renews the lease every `renewEveryMs` until the signal aborts. Rejects with `LeaseLostError` when
   * another owner took it, or with the store's error once a failing renewal can no longer be retried
   * (`renewEveryMs` before the lease lapses); the lease counts as lost either way.
   */
  async keepAlive(signal: AbortSignal): Promise<void> {
    const { store, key, lease } = this.options;
    let failures = 0;
    while (!signal.aborted) {
      const deadline = renewalDeadline(this.expiresAtMs, lease.renewEveryMs);
      const delay = failures === 0 ? lease.renewEveryMs : Math.min(backoffDelay(failures - 1, this.options.backoff), deadline - this.now());
      await sleep(Math.max(0, delay), signal);
      // Woken up past the lease (a paused process): it is lost, whoever holds it now.
      this.assertHeld();
      try {
        const result = await store.renewLease(key, { owner: lease.owner, durationMs: lease.durationMs, now: this.now() });
        if (!result.acquired) {
          const holder = result.holder?.owner;
          throw this.lose(new LeaseLostError(holder, holder === undefined ? 'it was deleted' : `${holder} took it`));
        }
        this.expiresAtMs = result.expiresAt;
        failures = 0;
      } catch (error) {
        if (error instanceof LeaseLostError || signal.aborted) throw error;
        failures++;
        if (this.now() >= deadline) {
          this.lose(new LeaseLostError(undefined, 'it could not be renewed in time'));
          throw error instanceof DynafoldError ? error : new CheckpointStoreError('Renewing the change feed lease failed', { cause: error });
        }
        log(this.options.logger, 'warn', { err: error, attempt: failures }, 'renewing the change feed lease failed, retrying');
      }
    }
  }

  /** Releases the lease if this feed still holds it; a failure is only logged, as the lease lapses anyway. */
  async release(): Promise<void> {
    if (this.lost || this.expiresAtMs === 0) return;
    this.released = true;
    try {
      await this.options.store.releaseLease(this.options.key, this.options.lease.owner);
      countLeaseChange(this.options.key.consumer, 'released');
      log(this.options.logger, 'info', { owner: this.options.lease.owner }, 'change feed lease released');
    } catch (error) {
      log(this.options.logger, 'warn', { err: error }, 'releasing the change feed lease failed; it lapses by itself');
    }
  }

  private lose(error: LeaseLostError): LeaseLostError {
    if (this.lostError === undefined) countLeaseChange(this.options.key.consumer, 'lost');
    this.lostError ??= error;
    return error;
  }
}

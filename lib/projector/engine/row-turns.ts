import type { KnownRow } from './row-memory';

/**
 * The calls of one process that bring the same row forward, one at a time in the order they started, each
 * handed the row as the one before it left it. Without turns, lanes of one process on one row (a hot row's
 * batches on parallel lanes) each read the row and all but one lose their write and try again, and a lane
 * whose batch is ahead of the row reads the events in between from the store; with them, the row goes
 * from call to call as it was written, with no read, no lost race and no gap the call before just filled.
 *
 * Only an optimisation, never what correctness rests on: every write is still conditioned on the row as
 * the call took it, so a row another process changed meanwhile fails the write, which reads the row and
 * tries again at once (as a remembered row does, see `RowMemory`). And a turn waited for longer than
 * `maxWaitMs` is taken anyway (the call then races as it would without turns), so a call that hangs holds
 * nobody up for long.
 */
export class RowTurns {
  private readonly last = new Map<string, Turn>();

  constructor(private readonly maxWaitMs: number) {}

  /**
   * A turn on each of a call's rows (by row id, in the call's order), all taken in one step: two calls that
   * share rows are then in the same order on every one of them, so no two ever wait for each other.
   */
  enter(ids: ReadonlyArray<string>): Turn[] {
    return ids.map((id) => {
      const turn = new Turn(this.last.get(id), this.maxWaitMs, () => {
        if (this.last.get(id) === turn) this.last.delete(id);
      });
      this.last.set(id, turn);
      return turn;
    });
  }

  /** Rows with a call on them. */
  get size(): number {
    return this.last.size;
  }
}

/** One call's turn on one row: wait for it (`taken`), say what the call left the row as (`leave`), `release` it. */
export class Turn {
  private left: KnownRow | undefined;
  private released = false;
  private readonly done: Promise<KnownRow | undefined>;
  private resolveDone!: (row: KnownRow | undefined) => void;

  constructor(
    private readonly before: Turn | undefined,
    private readonly maxWaitMs: number,
    private readonly onRelease: () => void,
  ) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /** Whether a call that started before this one has the row: the row must be taken after it, not before. */
  get waits(): boolean {
    return this.before !== undefined && !this.before.released;
  }

  /**
   * Resolves when the call before has released the row (at once if none has it), with the row as that call
   * left it if it knows (`undefined`: read it); after `maxWaitMs`, or when `signal` aborts, with `undefined`.
   */
  async taken(signal?: AbortSignal): Promise<KnownRow | undefined> {
    const before = this.before;
    if (before === undefined || before.released) return before?.left;
    if (signal?.aborted === true) return undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const givenUp = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.maxWaitMs);
      onAbort = () => resolve(undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([before.done, givenUp]);
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The row as this call leaves it (`undefined`: not known, the next call reads it); once released, no more. */
  leave(row: KnownRow | undefined): void {
    if (!this.released) this.left = row;
  }

  /** The call is done with the row; the next call takes it. Once only: later calls change nothing. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.resolveDone(this.left);
    this.onRelease();
  }
}

import type { StreamEvent } from '../../store';
import type { Key } from './plan-rows';

/** A Put sent in the same transaction as a row's write (an outbox message). */
export interface ExtraPut {
  readonly table: string;
  readonly item: Record<string, unknown>;
}

/**
 * The messages of one row write, added as the fold applies events. `accept` refuses an event whose
 * message would take the write past a transaction's limits, so the fold stops before it and the rest goes
 * into the next write.
 */
export interface MessageBatch {
  /** Adds the message of `event` (with the row's state right after it); `false` when it must wait for the next write. */
  accept(event: StreamEvent, state: unknown): boolean;
  /** The Puts of the messages accepted, in the order the fold applied their events. */
  readonly puts: ReadonlyArray<ExtraPut>;
}

/**
 * What puts messages in a row's transaction as the row is written (a projection's outbox, which implements
 * it): the engine asks for a batch per write and sends its Puts with the row.
 */
export interface RowMessages {
  /** The messages of one write of the row `key` at `revision`, collected while the row is folded. */
  batch(key: Key, revision: number): MessageBatch;
}

import type { StreamEvent } from '../../store';
import type { Key } from './plan-rows';

/** A Put sent in the same transaction as a row's write (an outbox message, a reaction's effect). */
export interface ExtraPut {
  readonly table: string;
  readonly item: Record<string, unknown>;
  /**
   * What the Put needs to find (a commit's: that its key does not exist). When it does not, the transaction
   * writes nothing, and the row's write counts as a lost race: the row is read and folded again.
   */
  readonly condition?: ExtraCondition | undefined;
}

/** The condition of an {@link ExtraPut}: an expression, and the names and values it refers to. */
export interface ExtraCondition {
  readonly expression: string;
  readonly names?: Readonly<Record<string, string>> | undefined;
  readonly values?: Readonly<Record<string, unknown>> | undefined;
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

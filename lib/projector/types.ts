import type { z } from 'zod';
import type { ReadModel, StreamEvent } from '../store';
import type { IndexDefinition } from '../store';
import type { Backoff } from '../util/backoff';
import type { OutboxOptions } from './outbox';
import type { RemoveRow, SkipEvent } from './skip';

/** The events of a stream, as a union narrowed by `type`. */
export type EventsOfStream<S> = S extends { readonly $types: { readonly event: infer E } } ? E : StreamEvent;
/** The structured id of a stream's instances. */
export type StreamIdOfStream<S> = S extends { readonly $types: { readonly streamId: infer I } } ? I : Readonly<Record<string, string>>;
/** A read model's row type. */
export type RowOfModel<M> = M extends ReadModel<infer Schema, Record<string, IndexDefinition>> ? z.output<Schema> : never;

/** Options of {@link Projection}. */
export interface ProjectionOptions<S, M, State> {
  /** Names the projection in errors and logs. @defaultValue `<stream name>→<read model name>` */
  readonly name?: string;
  readonly stream: S;
  readonly readModel: M;
  /** The row an event folds into (its key fields), or `undefined` to ignore the event: no read, no write. */
  readonly key: (streamId: StreamIdOfStream<S>, event: EventsOfStream<S>) => Readonly<Record<string, unknown>> | undefined;
  /** The state a row starts from, before `event`, the first event folded into a row that does not exist yet. */
  readonly initial: (streamId: StreamIdOfStream<S>, event: EventsOfStream<S>) => State;
  /** The next state, `skipEvent` or `removeRow`. May be async; runs again on every lost-race retry, so keep it free of side effects. A throw fails the row unless `terminal` accepts it. */
  readonly evolve: (state: State, event: EventsOfStream<S>) => State | SkipEvent | RemoveRow | Promise<State | SkipEvent | RemoveRow>;
  /** The numeric field holding the last applied version, or `{ field, offset }` to store `version + offset`. */
  readonly checkpoint: string | { readonly field: string; readonly offset?: number };
  /** Errors of `evolve` that reject their event instead of failing the row. Must be deterministic. */
  readonly terminal?: (error: unknown) => boolean;
  /** Maps the folded state to the row as written (e.g. to recompute attributes other readers use). */
  readonly toItem?: (state: State, context: { readonly streamId: StreamIdOfStream<S>; readonly key: Readonly<Record<string, unknown>> }) => RowOfModel<M>;
  /** Keep a revision on each row, incremented on every write and part of every write's condition (closes the rebuild race). @defaultValue false (true with an outbox) */
  readonly revision?: boolean;
  /** Whether an event recreates a row `evolve` removed (from `initial`). @defaultValue never */
  readonly recreate?: (event: EventsOfStream<S>) => boolean;
  /** Let DynamoDB TTL delete tombstones this long after the removal (enable TTL on `attribute`); see the README for when that is safe. */
  readonly tombstoneTtl?: { readonly seconds: number; readonly attribute?: string };
  /** Write what the row applied to an outbox in the same transaction, for a relay to publish in order. */
  readonly outbox?: OutboxOptions<State, EventsOfStream<S>>;
  /** Rows processed at once. @defaultValue 10 */
  readonly concurrency?: number;
  /** Tries of a row's conditional write against concurrent writers. @defaultValue 12 tries, ~1.2 s in all */
  readonly retry?: { readonly attempts?: number; readonly backoff?: Backoff };
}

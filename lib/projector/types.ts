import type { z } from 'zod';
import type { EventsOfStream } from '../store';
import type { IndexDefinition, KeyOfModel, ReadModel } from '../read-model';
import type { CommonProjectionOptions } from './runtime';
import type { RemoveRow, SkipEvent } from './skip';
export type { EventsOfStream } from '../store';
export type { AnyProjection, CallOptions, EntryOptions } from '../outcome';

/** The structured id of a stream's instances. */
export type StreamIdOfStream<S> = S extends { readonly $types: { readonly streamId: infer I } } ? I : Readonly<Record<string, string>>;
/** A read model's row type. */
export type RowOfModel<M> = M extends ReadModel<infer Schema, Record<string, IndexDefinition>> ? z.output<Schema> : never;

/** Options of {@link Projection}. */
export interface ProjectionOptions<S, M, State> extends CommonProjectionOptions<M, State, EventsOfStream<S>> {
  /**
   * The projection's one name: the transports report its outcomes under it (given `projections` as a list),
   * and its spans, metrics, logs, errors and the CLI use it. It is stored in outbox message keys, so keep it stable.
   * @defaultValue `<stream name>-><read model name>`
   */
  readonly name?: string | undefined;
  readonly stream: S;
  /** The row an event folds into (its key fields), or `undefined` to ignore the event: no read, no write. A row is fed by one stream instance. */
  readonly key: (streamId: StreamIdOfStream<S>, event: EventsOfStream<S>) => KeyOfModel<M> | undefined;
  /** The state a row starts from, before `event`, the first event folded into a row that does not exist yet. */
  readonly initial: (streamId: StreamIdOfStream<S>, event: EventsOfStream<S>) => State;
  /** The next state, `skipEvent` or `removeRow`. May be async; runs again on every lost-race retry, so keep it free of side effects. A throw fails the row unless `terminal` accepts it. */
  readonly evolve: (state: State, event: EventsOfStream<S>) => State | SkipEvent | RemoveRow | Promise<State | SkipEvent | RemoveRow>;
  /** The numeric field holding the last applied version, or `{ field, offset }` to store `version + offset`. */
  readonly checkpoint: string | { readonly field: string; readonly offset?: number | undefined };
  /** Maps the folded state to the row as written (e.g. to recompute attributes other readers use). */
  readonly toItem?: ((state: State, context: { readonly streamId: StreamIdOfStream<S>; readonly key: KeyOfModel<M> }) => RowOfModel<M>) | undefined;
  /** Keep a revision on each row, incremented on every write and part of every write's condition (closes the rebuild race). @defaultValue false (true with an outbox) */
  readonly revision?: boolean | undefined;
}

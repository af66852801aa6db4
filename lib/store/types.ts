import type { z } from 'zod';
import type { TraceContext } from '../telemetry';

/** The zod schema of each event type's `data`, keyed by type name. */
export type EventSchemas = Readonly<Record<string, z.ZodType>>;

/** A structured stream id: one string per composite field. */
export type StreamIdOf<Fields extends ReadonlyArray<string>> = { readonly [K in Fields[number]]: string };

/** A stored event. `type` narrows `data` for events of a typed stream ({@link EventOf}). */
export interface StreamEvent<Type extends string = string, Data = unknown> {
  /** The stream's name, also the marker stored on every event item. */
  readonly streamName: string;
  /** The stream id's string form: its composite values joined with `#`. */
  readonly streamId: string;
  /** 1-based position in the stream instance; versions are contiguous. */
  readonly version: number;
  readonly type: Type;
  readonly data: Data;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /** When the event was appended (ISO-8601). */
  readonly timestamp: string;
  /**
   * The trace context of the span that appended it, when one was active (an OpenTelemetry SDK registered)
   * and the stream stores it (`traceContext`): spans that project the event link to it.
   */
  readonly trace?: TraceContext | undefined;
}

/** The union of a stream's events, one member per event type. */
export type EventOf<E extends EventSchemas> = {
  [K in keyof E & string]: StreamEvent<K, z.output<E[K]>>;
}[keyof E & string];

/** A fold over a stream: where it starts and how each event changes the state. */
export interface Fold<State, Event> {
  readonly initial: State | (() => State);
  readonly evolve: (state: State, event: Event) => State;
}

/** A range of versions to read, inclusive, and a signal that cancels the read. */
export interface ReadRange {
  /** @defaultValue 1 */
  readonly fromVersion?: number | undefined;
  /** @defaultValue the head */
  readonly toVersion?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A fold's state as of a version, saved to shorten later loads. */
export interface Snapshot<State> {
  readonly version: number;
  readonly state: State;
  /** The version of the state's shape (see `snapshot.version` of `load`). @defaultValue 1 */
  readonly stateVersion?: number | undefined;
}

/** The events of a stream, as a union narrowed by `type`. */
export type EventsOfStream<S> = S extends { readonly $types: { readonly event: infer E } } ? E : StreamEvent;

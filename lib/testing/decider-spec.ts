import { randomBytes } from 'node:crypto';
import { ConfigurationError, ValidationError } from '../errors';
import type { Decider, EventOf, EventSchemas, EventStream, NewEventOf, StreamIdOf } from '../store';
import { assertEqual, callSite, reportedAt, SpecAssertionError } from './assertion';

/** Options of {@link deciderSpec}. */
export interface DeciderSpecOptions<Fields extends ReadonlyArray<string>> {
  /**
   * Run through the stream on DynamoDB Local: the given events are appended and the command runs with
   * `execute`. `true` uses a fresh stream id; or name an instance with no events yet. @defaultValue false
   * (pure: no DynamoDB, events are built as the store would store them)
   */
  readonly store?: boolean | { readonly streamId: StreamIdOf<Fields> | string } | undefined;
}

/** What the command did: the events it appended (maybe none), the state after them and the version. */
export interface DeciderOutcome<State, Event> {
  readonly events: ReadonlyArray<Event>;
  readonly state: State;
  readonly version: number;
}

/** A decider spec with its command; the `then…` methods run it. */
export interface DeciderSpecWhen<State, Event, NewEvent> {
  /**
   * The command must decide these events, compared by `type` and `data` (after the schema, as stored)
   * and by `metadata` where an expected event has some. Resolves what the command did.
   */
  thenEvents(expected: ReadonlyArray<NewEvent>): Promise<DeciderOutcome<State, Event>>;
  /**
   * The command must throw: an instance of the error class given, or an error the predicate accepts (a
   * predicate returning `false` or throwing fails the spec). Resolves the error.
   */
  thenThrows(expected: (abstract new (...args: never[]) => unknown) | ((error: unknown) => boolean | void)): Promise<unknown>;
}

/** A decider spec: `given` events, `when` a command (a {@link Decider}), then events or an error. */
export interface DeciderSpec<Events extends EventSchemas> {
  /** More events, after those already given. */
  given(events: ReadonlyArray<NewEventOf<Events>>): DeciderSpec<Events>;
  when<State>(command: Decider<State, EventOf<Events>, NewEventOf<Events>>): DeciderSpecWhen<State, EventOf<Events>, NewEventOf<Events>>;
}

/**
 * A given/when/then spec of a command. Pure by default: the stream's schemas validate the events and
 * nothing reaches DynamoDB. With `store`, the same spec runs through `append` and `execute` on DynamoDB
 * Local. A failure is a {@link SpecAssertionError} with a diff.
 *
 * @example
 * ```ts
 * test('a shipped order takes no items', () =>
 *   deciderSpec(OrderEvents)
 *     .given([{ type: 'OrderPlaced', data: { customer: 'ada' } }, { type: 'OrderShipped', data: {} }])
 *     .when(addItem({ sku: 'book', price: 12 }))
 *     .thenThrows(OrderShippedError))
 * ```
 */
export function deciderSpec<Name extends string, Fields extends ReadonlyArray<string>, Events extends EventSchemas>(
  stream: EventStream<Name, Fields, Events>,
  options: DeciderSpecOptions<Fields> = {},
): DeciderSpec<Events> {
  const spec = (given: ReadonlyArray<NewEventOf<Events>>): DeciderSpec<Events> => ({
    given: (events) => spec([...given, ...events]),
    when: (command) => {
      const run = () =>
        options.store === undefined || options.store === false ? runPure(stream, given, command) : runInStore(stream, given, command, options.store);
      return whenOf(stream, run);
    },
  });
  return spec([]);
}

type Outcome<State, Event> = { readonly ok: true; readonly value: DeciderOutcome<State, Event> } | { readonly ok: false; readonly error: unknown };

function whenOf<State, Events extends EventSchemas>(
  stream: EventStream<string, ReadonlyArray<string>, Events>,
  run: () => Promise<DeciderOutcome<State, EventOf<Events>>>,
): DeciderSpecWhen<State, EventOf<Events>, NewEventOf<Events>> {
  const outcome = async (): Promise<Outcome<State, EventOf<Events>>> => {
    try {
      return { ok: true, value: await run() };
    } catch (error) {
      return { ok: false, error };
    }
  };
  const header = `Decider spec of ${stream.name} failed`;
  return {
    thenEvents: function thenEvents(expected) {
      return reportedAt(callSite(thenEvents), async () => {
        const result = await outcome();
        if (!result.ok) {
          throw new SpecAssertionError(`${header}: expected events, but the command threw ${describe(result.error)}`);
        }
        const actual = result.value.events.map((event, index) => comparable(event, expected[index]));
        assertEqual(
          'events',
          actual,
          expected.map((event) => comparable(normalized(stream, event), event)),
          { header },
        );
        return result.value;
      });
    },
    thenThrows: function thenThrows(expected) {
      return reportedAt(callSite(thenThrows), async () => {
        const result = await outcome();
        if (result.ok) {
          throw new SpecAssertionError(
            `${header}: expected the command to throw, but it decided ${JSON.stringify(result.value.events.map(({ type, data }) => ({ type, data })))}`,
          );
        }
        const error = result.error;
        if (isErrorClass(expected)) {
          if (!(error instanceof expected)) {
            throw new SpecAssertionError(`${header}: expected a ${expected.name}, but the command threw ${describe(error)}`, { actual: error });
          }
        } else if (expected(error) === false) {
          throw new SpecAssertionError(`${header}: the command threw ${describe(error)}, which the predicate refused`, { actual: error });
        }
        return error;
      });
    },
  };
}

async function runPure<State, Events extends EventSchemas>(
  stream: EventStream<string, ReadonlyArray<string>, Events>,
  given: ReadonlyArray<NewEventOf<Events>>,
  command: Decider<State, EventOf<Events>, NewEventOf<Events>>,
): Promise<DeciderOutcome<State, EventOf<Events>>> {
  const streamId = stream.streamIdFields.map(() => 'spec').join('#');
  const event = (newEvent: NewEventOf<Events>, version: number) => asStored(stream, streamId, version, newEvent);
  let state = typeof command.initial === 'function' ? (command.initial as () => State)() : command.initial;
  given.forEach((newEvent, index) => (state = command.evolve(state, event(newEvent, index + 1))));
  const decided = (await command.decide?.(state, given.length)) ?? [];
  const events = decided.map((newEvent, index) => event(newEvent, given.length + 1 + index));
  for (const appended of events) state = command.evolve(state, appended);
  return { events, state, version: given.length + events.length };
}

async function runInStore<State, Fields extends ReadonlyArray<string>, Events extends EventSchemas>(
  stream: EventStream<string, Fields, Events>,
  given: ReadonlyArray<NewEventOf<Events>>,
  command: Decider<State, EventOf<Events>, NewEventOf<Events>>,
  store: true | { readonly streamId: StreamIdOf<Fields> | string },
): Promise<DeciderOutcome<State, EventOf<Events>>> {
  const streamId =
    store === true ? stream.streamIdFields.map(() => `spec-${randomBytes(6).toString('hex')}`).join('#') : stream.formatStreamId(store.streamId);
  const version = await stream.version(streamId);
  if (version !== 0) {
    throw new ConfigurationError(
      `deciderSpec: stream ${stream.name} ${streamId} already holds ${version} events; name a new instance or pass \`store: true\`.`,
    );
  }
  if (given.length > 0) await stream.append(streamId, given, { expectedVersion: 0 });
  const { events, state, version: after } = await stream.execute(streamId, command);
  return { events, state, version: after };
}

/** A new event as the store would hand it back: data through its type's schema, at a version, stamped now. */
function asStored<Events extends EventSchemas>(
  stream: EventStream<string, ReadonlyArray<string>, Events>,
  streamId: string,
  version: number,
  event: NewEventOf<Events>,
): EventOf<Events> {
  return {
    streamName: stream.name,
    streamId,
    version,
    type: event.type,
    data: parseData(stream, event),
    ...(event.metadata === undefined ? {} : { metadata: event.metadata }),
    timestamp: new Date().toISOString(),
  } as EventOf<Events>;
}

function parseData<Events extends EventSchemas>(stream: EventStream<string, ReadonlyArray<string>, Events>, event: NewEventOf<Events>): unknown {
  const schema = stream.events[event.type];
  if (schema === undefined) {
    throw new ValidationError(`${stream.name} has no event type ${JSON.stringify(event.type)}.`, [{ path: ['type'], message: 'unknown event type' }]);
  }
  const parsed = schema.safeParse(event.data);
  if (!parsed.success) {
    throw new ValidationError(
      `Invalid ${event.type} event for ${stream.name}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`).join('; ')}`,
      parsed.error.issues.map((issue) => ({
        path: ['data', ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))],
        message: issue.message,
      })),
    );
  }
  return parsed.data;
}

/** An expected event as stored (its data through the schema); left as written when the schema refuses it, for the diff to show. */
function normalized<Events extends EventSchemas>(
  stream: EventStream<string, ReadonlyArray<string>, Events>,
  event: NewEventOf<Events>,
): { type: string; data: unknown; metadata?: unknown } {
  try {
    return { ...event, data: parseData(stream, event) };
  } catch {
    return event;
  }
}

/** What of an event a spec compares: type and data, and metadata when the expected event has some. */
function comparable(
  event: { type: string; data: unknown; metadata?: unknown },
  expected: { metadata?: unknown } | undefined,
): Record<string, unknown> {
  return { type: event.type, data: event.data, ...(expected?.metadata === undefined ? {} : { metadata: event.metadata }) };
}

function isErrorClass(value: unknown): value is abstract new (...args: never[]) => unknown {
  return typeof value === 'function' && (value === Error || (value as { prototype?: unknown }).prototype instanceof Error);
}

function describe(error: unknown): string {
  // A subclass that sets no `name` is still told by its class.
  if (error instanceof Error) return `${error.name === 'Error' ? error.constructor.name : error.name}: ${error.message}`;
  return JSON.stringify(error);
}

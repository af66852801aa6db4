import { documentClient } from '../dynamo';
import { ConfigurationError } from '../errors';
import type { AnyEventStream, StreamEvent } from '../store';
import { ReadModel } from '../read-model';
import { requireFunction, requireInteger, requireText, resolveRetry, resolveTtl, type Logger, type RetryOptions, type Ttl } from '../util';
import { ProjectionDefaults } from './defaults';
import { RowMemory, RowTurns, type RowMemoryOptions, type RowMessages, type RowRuntime, type RowStore } from './engine';
import { OutboxWriter, type OutboxOptions } from './outbox';
import { rowRecords, type ParkingRuntime } from './parking';

/**
 * What a projection does with a row whose events keep failing: `'retry'` fails its records on every
 * delivery (the source holds the shard); `park` sets the row aside after `afterAttempts` failed attempts,
 * so the shard moves on, until `retryParked` or `skipParked`.
 */
export type PoisonPolicy = 'retry' | { readonly park: { readonly afterAttempts: number } };

/** A projection's runtime: what the engine runs on, and what its operations decide with (parking, logging). */
export type ProjectionRuntime<State> = ParkingRuntime<State> & {
  /** Whether a backfill writes the messages of what it applies: a reaction's effects, for which history is news. */
  readonly backfillMessages: boolean;
};

/** Options every kind of projection takes, whatever feeds its rows. */
export interface CommonProjectionOptions<M, State, Event> {
  /**
   * The projection's one name: outcomes (the transports take `projections` as a list), spans, metrics, logs,
   * errors and the CLI use it. It is also stored: in outbox message keys (and ids are unique per projection),
   * so renaming a projection with an outbox starts its rows' messages afresh.
   */
  readonly name?: string | undefined;
  readonly readModel: M;
  /** Errors of `evolve` that reject their event instead of failing the row. Must be deterministic. */
  readonly terminal?: ((error: unknown) => boolean) | undefined;
  /** Whether an event recreates a row `evolve` removed (from `initial`). @defaultValue never */
  readonly recreate?: ((event: Event) => boolean) | undefined;
  /** Let DynamoDB TTL delete tombstones this long after the removal (enable TTL on `attribute`); see the README for when that is safe. */
  readonly tombstoneTtl?: Ttl | undefined;
  /** Write what the row applied to an outbox in the same transaction, for a relay to publish in order. */
  readonly outbox?: OutboxOptions<State, Event> | undefined;
  /**
   * What to do with a row whose events keep failing (an `evolve` that throws, a row its model refuses or
   * DynamoDB can't hold): `'retry'` fails its records on every delivery, which holds the shard;
   * `{ park: { afterAttempts } }` parks the row after that many failed attempts (transient failures never
   * count): its events are set aside and reported done, so the shard moves on, until `retryParked` or
   * `skipParked`. @defaultValue 'retry'
   */
  readonly poison?: PoisonPolicy | undefined;
  /** Receives what happens to failing rows: a failed attempt counted (warn), a row parked (error), a parked row replayed (info). */
  readonly logger?: Logger | undefined;
  /** Rows processed at once. @defaultValue 10 */
  readonly concurrency?: number | undefined;
  /** Tries of a row's conditional write against concurrent writers. @defaultValue 12 tries, ~1.2 s in all, no time limit */
  readonly retry?: RetryOptions | undefined;
}

/** What a kind of projection decides itself; the rest comes from the common options. */
export interface RowKindParts<State> {
  readonly defaultName: string;
  readonly streams: ReadonlyArray<AnyEventStream>;
  readonly keyOf: RowRuntime<State>['keyOf'];
  readonly initial: RowRuntime<State>['initial'];
  readonly evolve: unknown;
  readonly toItem: RowRuntime<State>['toItem'];
  readonly checkpoints: (name: string) => RowStore['checkpoints'];
  /** Keep a revision on every row (always with an outbox, which orders a row's messages by it). */
  readonly revision: boolean;
  /**
   * What the kind of row writes in each row's transaction instead of an outbox's messages (a reaction's
   * effects), and whether a backfill writes them too (a reaction reacts to history as to news).
   */
  readonly messages?: { readonly writer: RowMessages; readonly inBackfill: boolean } | undefined;
  /** Rows the engine may remember as this process wrote them instead of reading them (see `RowMemory`). @defaultValue none */
  readonly memory?: RowMemoryOptions | undefined;
}

/**
 * A key function under which an event of a type retired with `skip` addresses no row: ignored like any
 * event `key` maps to no row, so every fold (apply, gap reads, catch-up, rebuild, backfill) passes over it.
 */
function skippingRetired(streams: ReadonlyArray<AnyEventStream>, keyOf: RowRuntime<unknown>['keyOf']): RowRuntime<unknown>['keyOf'] {
  const skips = new Map(streams.flatMap((stream) => (stream.skipsInFolds === undefined ? [] : [[stream.name, stream.skipsInFolds] as const])));
  if (skips.size === 0) return keyOf;
  return (event) => (skips.get(event.streamName)?.(event) === true ? undefined : keyOf(event));
}

/** Validates the common options and assembles a projection's runtime; throws `ConfigurationError` naming the first bad option. */
export function resolveRuntime<State, Event>(
  options: CommonProjectionOptions<unknown, State, Event>,
  parts: RowKindParts<State>,
): ProjectionRuntime<State> {
  const { readModel } = options;
  if (!(readModel instanceof ReadModel)) throw new ConfigurationError('Expected `readModel` to be a ReadModel.');
  const name = requireText('name', options.name ?? parts.defaultName, 'Projection');
  const where = `Projection ${name}`;
  requireFunction('evolve', parts.evolve, where);
  const concurrency = requireInteger('concurrency', options.concurrency ?? ProjectionDefaults.concurrency, 1, undefined, where);
  const retry = resolveRetry(options.retry, ProjectionDefaults.retry, where);
  const ttl =
    options.tombstoneTtl === undefined
      ? undefined
      : resolveTtl('tombstoneTtl', options.tombstoneTtl, { minMs: 1_000, attribute: ProjectionDefaults.tombstoneTtlAttribute }, where);
  const poison = options.poison ?? 'retry';
  if (poison !== 'retry' && (typeof poison !== 'object' || poison === null || typeof poison.park !== 'object' || poison.park === null)) {
    throw new ConfigurationError(`${where}: expected \`poison\` to be 'retry' or { park: { afterAttempts } }.`);
  }
  const afterAttempts = poison === 'retry' ? undefined : requireInteger('poison.park.afterAttempts', poison.park.afterAttempts, 1, undefined, where);
  // The engine hands the callbacks (`recreate`, the outbox's) only the events of the projection's own streams: its `Event`s.
  const outbox =
    parts.messages?.writer ??
    (options.outbox === undefined ? undefined : new OutboxWriter(name, readModel, options.outbox as OutboxOptions<unknown, StreamEvent>));
  return {
    name,
    store: {
      readModel,
      documents: documentClient(readModel.client),
      checkpoints: parts.checkpoints(name),
      records: rowRecords,
      revision: parts.revision || outbox !== undefined,
      ...(ttl === undefined ? {} : { tombstoneTtl: ttl }),
    },
    streams: new Map(parts.streams.map((stream) => [stream.name, stream])),
    keyOf: skippingRetired(parts.streams, parts.keyOf),
    initial: parts.initial,
    evolve: parts.evolve as RowRuntime<State>['evolve'],
    ...(options.terminal === undefined ? {} : { terminal: options.terminal }),
    ...(options.recreate === undefined ? {} : { recreate: options.recreate as RowRuntime<State>['recreate'] }),
    toItem: parts.toItem,
    ...(outbox === undefined ? {} : { outbox }),
    poison: afterAttempts === undefined ? undefined : { afterAttempts },
    logger: options.logger,
    concurrency,
    retry,
    backfillMessages: parts.messages?.inBackfill === true,
    ...(parts.memory === undefined ? {} : { memory: new RowMemory(parts.memory) }),
    turns: new RowTurns(ProjectionDefaults.turnWaitMs),
  };
}

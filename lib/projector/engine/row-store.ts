import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AppliedOutcome, MultiSourceAppliedOutcome } from '../../outcome';
import type { AnyEventStream, StreamEvent } from '../../store';
import type { PrimaryKeyDefinition, ReadModel } from '../../read-model';
import { OwnedMemo, type ResolvedRetry } from '../../util';
import type { Evolved, FailedEvent } from './fold-row';
import type { Key, RowGroup } from './plan-rows';
import type { RowMemory } from './row-memory';
import type { RowTurns } from './row-turns';
import type { RowMessages } from './row-messages';

type Group = RowGroup<StreamEvent, Key>;

/** What a stored item records of its checkpoints (see `ReadRow`). */
export interface StoredCheckpoints {
  /** The last version considered of each source instance (by `instanceKey`) the row records. */
  readonly checkpoints: ReadonlyMap<string, number>;
  /** A single-source row's checkpoint when it does not record its source instance. */
  readonly unattributed: number | undefined;
  /** The stored checkpoint field's value, `undefined` when the row or its checkpoint field is absent. */
  readonly storedCheckpoint: number | undefined;
}

/** What an applied row reports in common, whatever feeds it. */
type Handled = Omit<AppliedOutcome, 'streamId' | 'version'>;

/**
 * Where a kind of row keeps its checkpoints, chosen once per projection: every stage that reads, writes,
 * conditions or reports a checkpoint asks this object instead of telling the kinds apart itself.
 */
export interface CheckpointStrategy {
  /** The checkpoints a stored item records. */
  readonly fromItem: (item: Readonly<Record<string, unknown>>) => StoredCheckpoints;
  /** The row's fields with the checkpoint a row writes among them (before the model validates them). */
  readonly withField: (fields: Readonly<Record<string, unknown>>, checkpoints: ReadonlyMap<string, number>) => Record<string, unknown>;
  /** Records whose checkpoints an item holds, on the item about to be written. */
  readonly mark: (item: Record<string, unknown>, checkpoints: ReadonlyMap<string, number>) => void;
  /** The stored checkpoint a write's condition must find unchanged: `attribute` and its value, or none. */
  readonly condition: (read: StoredCheckpoints) => { readonly attribute: string; readonly value: number | undefined } | undefined;
  /** The row's checkpoints for a call's events (a single-source row refuses another instance's events). */
  readonly forGroup: (projection: string, group: Group, row: StoredCheckpoints) => ReadonlyMap<string, number>;
  /** How many source instances a row too large to write names in its error (`undefined`: not the point). */
  readonly sourcesOfTooLarge: (instances: number) => number | undefined;
  /** An applied row's outcome, with its checkpoints as the kind reports them. */
  readonly outcome: (handled: Handled, group: Group, checkpoints: ReadonlyMap<string, number>) => AppliedOutcome | MultiSourceAppliedOutcome;
}

/**
 * A row's records, what a feature keeps on it beside its fields and checkpoints (parking's failed attempts,
 * parked record and skipped events): the values of the attributes a {@link RecordStrategy} names, as stored
 * (`undefined`: absent). The engine carries them on every write and reads nothing in them.
 */
export type RowRecords = Readonly<Record<string, unknown>>;

/** How a fold's write ends, for the records it keeps. */
export interface FoldEnd {
  /** Each source instance's checkpoint once the write went through. */
  readonly checkpoints: ReadonlyMap<string, number>;
  /** The event the fold stopped at, failing: what came before it is written, then the failure is handled. */
  readonly failure: FailedEvent<StreamEvent> | undefined;
  /** The fold goes on with another write after this one. */
  readonly more: boolean;
  /** The events the fold passed over on purpose (see `RecordStrategy.passesOver`) whose checkpoint it moved past them. */
  readonly passedOver: ReadonlyArray<StreamEvent>;
}

/**
 * What a row keeps besides its fields and checkpoints, and how its writes carry it: a feature's bookkeeping
 * (parking's, `lib/projector/parking/records.ts`), chosen for the projection; an operation that changes
 * what the records become (a rebuild, a replay) runs with a strategy of its own. Every stage that reads,
 * folds past, writes or conditions a record asks this object.
 */
export interface RecordStrategy {
  /** The attributes that hold the records: read with the row, kept by every write, removed by none. */
  readonly attributes: ReadonlyArray<string>;
  /** The parts of a write's condition that the records are still as read. Adds their names and values. */
  readonly condition: (read: RowRecords, names: Record<string, string>, values: Record<string, unknown>) => string[];
  /**
   * Whether no fold applies `event`, passed over on purpose: it is left out, and once the fold gets past it
   * a checkpoint behind it moves past it, as if it had been applied.
   */
  readonly passesOver: (read: RowRecords, event: StreamEvent) => boolean;
  /** The records a fold's write keeps (it replaces the whole item), from those read. */
  readonly afterFold: (read: RowRecords, end: FoldEnd) => RowRecords;
}

/**
 * How a projection keeps its rows: the model, where checkpoints live (the kind of row's
 * {@link CheckpointStrategy}), what else a row records ({@link RecordStrategy}), and the optional row features.
 */
export interface RowStore {
  readonly readModel: ReadModel;
  /** A document client on the read model's client. */
  readonly documents: DynamoDBDocumentClient;
  readonly checkpoints: CheckpointStrategy;
  readonly records: RecordStrategy;
  /** Keep a revision, incremented on every write and part of every write's condition. */
  readonly revision: boolean;
  /** Let DynamoDB TTL expire tombstones after this long. */
  readonly tombstoneTtl?: { readonly attribute: string; readonly durationMs: number } | undefined;
}

/**
 * Everything the engine needs of a projection's rows, resolved once at construction. The two kinds of
 * rows differ only in their store (where checkpoints live: see `RowStore`) and in how a row starts and is
 * written (`initial`, `toItem`); everything else is one engine.
 */
export interface RowRuntime<State> {
  readonly name: string;
  readonly store: RowStore;
  /** The streams feeding the rows, by stream name. */
  readonly streams: ReadonlyMap<string, AnyEventStream>;
  /** The row an event addresses (its key fields), or `undefined` for an ignored event. */
  readonly keyOf: (event: StreamEvent) => Key | undefined;
  readonly initial: (group: Group, event: StreamEvent) => State;
  readonly evolve: (state: State, event: StreamEvent) => Evolved<State> | Promise<Evolved<State>>;
  readonly terminal?: ((error: unknown) => boolean) | undefined;
  readonly recreate?: ((event: StreamEvent) => boolean) | undefined;
  readonly toItem: (state: State, group: Group) => Record<string, unknown>;
  /** Puts messages in a row's transaction as it is written (a projection's outbox). */
  readonly outbox?: RowMessages | undefined;
  readonly concurrency: number;
  readonly retry: ResolvedRetry;
  /** The rows this process wrote last, taken instead of read where the kind of row allows (a reaction's progress). */
  readonly memory?: RowMemory | undefined;
  /** The calls of this process on one row, one at a time, each handed the row as the one before left it. */
  readonly turns?: RowTurns | undefined;
}

/** The parts of a runtime that don't depend on the row's state. */
export type RowBasics = Pick<RowRuntime<unknown>, 'name' | 'store' | 'streams' | 'keyOf'>;

// Rows' stored keys by read model, by the values of their key fields (see `keyValuesOf`): a call asks for
// the id of each of its events' rows, a fold for each event it folds and a write for its row's key, and
// making the stored key is the costly part.
const storedKeys = new OwnedMemo<object, StoredKey>(10_000);

/** A row's key attributes as stored, and as one string: the row's identity. */
interface StoredKey {
  readonly id: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** A row's stable identity: its stored key. */
export function rowIdOf(runtime: Pick<RowBasics, 'store'>, key: Key): string {
  return storedKeyOf(runtime, key).id;
}

/** A row's key attributes as stored (not to be changed: they are kept for the next call). */
export function storedKeyOf(runtime: Pick<RowBasics, 'store'>, key: Key): StoredKey {
  const { readModel } = runtime.store;
  const values = keyValuesOf(readModel.key, key);
  const make = () => storedKey(readModel.keyOf(key));
  return values === undefined ? make() : storedKeys.get(readModel, values, make);
}

function storedKey(attributes: Record<string, string>): StoredKey {
  return { id: JSON.stringify(attributes), attributes };
}

/**
 * The values of the fields the stored key is made of, as one string: equal for two keys only when those
 * values are (of the same type and text: `1` and `'1'` differ); `undefined` when one is not a string,
 * number or boolean (its id is made each time).
 */
function keyValuesOf(definition: PrimaryKeyDefinition, key: Key): string | undefined {
  let text = '';
  for (const fields of [definition.pk.composite, definition.sk?.composite ?? []]) {
    for (const field of fields) {
      const value = key[field];
      const type = typeof value;
      if (type !== 'string' && type !== 'number' && type !== 'boolean') return undefined;
      text += type === 'string' ? `${JSON.stringify(value)},` : `${type[0] as string}${String(value)},`;
    }
    text += '|';
  }
  return text;
}

/**
 * The runtime with the rows' records kept by `records` instead: what an operation that changes what they
 * become (a rebuild, a replay) runs on.
 */
export function withRecords<State>(runtime: RowRuntime<State>, records: RecordStrategy): RowRuntime<State> {
  // What it writes is read back under other records: the live calls read those rows, they are not handed them.
  return { ...runtime, memory: undefined, turns: undefined, store: { ...runtime.store, records } };
}

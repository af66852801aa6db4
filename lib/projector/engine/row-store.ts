import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AppliedOutcome, MultiSourceAppliedOutcome } from '../../outcome';
import type { AnyEventStream, StreamEvent } from '../../store';
import type { ReadModel } from '../../read-model';
import type { ResolvedRetry } from '../../util';
import type { Evolved } from './fold-row';
import type { Key, RowGroup } from './plan-rows';
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
 * How a projection keeps its rows: the model, where checkpoints live (the kind of row's
 * {@link CheckpointStrategy}), and the optional row features.
 */
export interface RowStore {
  readonly readModel: ReadModel;
  /** A document client on the read model's client. */
  readonly documents: DynamoDBDocumentClient;
  readonly checkpoints: CheckpointStrategy;
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
}

/** The parts of a runtime that don't depend on the row's state. */
export type RowBasics = Pick<RowRuntime<unknown>, 'name' | 'store' | 'streams' | 'keyOf'>;

/** A row's stable identity: its stored key. */
export function rowIdOf(runtime: Pick<RowBasics, 'store'>, key: Key): string {
  return JSON.stringify(runtime.store.readModel.keyOf(key));
}

import { MultipleSourcesError } from '../../errors';
import { RowAttributes, instanceKey, type StreamEvent } from '../../store';
import type { AppliedOutcome, MultiSourceAppliedOutcome } from '../outcome';
import type { CheckpointField } from './checkpoint-field';
import type { Key, RowGroup } from './plan-rows';

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
  readonly forGroup: (projection: string, group: RowGroup<StreamEvent, Key>, row: StoredCheckpoints) => ReadonlyMap<string, number>;
  /** How many source instances a row too large to write names in its error (`undefined`: not the point). */
  readonly sourcesOfTooLarge: (instances: number) => number | undefined;
  /** An applied row's outcome, with its checkpoints as the kind reports them. */
  readonly outcome: (
    handled: Handled,
    group: RowGroup<StreamEvent, Key>,
    checkpoints: ReadonlyMap<string, number>,
  ) => AppliedOutcome | MultiSourceAppliedOutcome;
}

/**
 * A single-source row keeps its checkpoint in a field of its own (`version + offset`) and records the one
 * stream instance feeding it.
 */
export function singleSourceCheckpoints(field: CheckpointField): CheckpointStrategy {
  return {
    fromItem: (item) => {
      const stored = item[field.field];
      const value = typeof stored === 'number' ? stored - field.offset : undefined;
      const source = item[RowAttributes.source];
      const checkpoint = value ?? 0;
      return {
        checkpoints: new Map(typeof source === 'string' ? [[source, checkpoint]] : []),
        unattributed: typeof source === 'string' ? undefined : checkpoint,
        storedCheckpoint: typeof stored === 'number' ? stored : undefined,
      };
    },
    withField: (fields, checkpoints) => {
      const [[source, version] = []] = [...checkpoints];
      return source !== undefined && version !== undefined ? { ...fields, [field.field]: version + field.offset } : { ...fields };
    },
    mark: (item, checkpoints) => {
      const [source] = checkpoints.keys();
      if (source !== undefined) item[RowAttributes.source] = source;
    },
    condition: (read) => ({ attribute: field.field, value: read.storedCheckpoint }),
    forGroup: (projection, group, row) => {
      const instances = new Set([...group.events.map(instanceKey), ...row.checkpoints.keys()]);
      if (instances.size > 1) throw new MultipleSourcesError(projection, group.key, [...instances].sort());
      const [instance] = instances;
      return new Map(instance === undefined ? [] : [[instance, row.checkpoints.get(instance) ?? row.unattributed ?? 0]]);
    },
    sourcesOfTooLarge: () => undefined,
    outcome: (handled, group, checkpoints) => ({
      ...handled,
      streamId: group.streamId,
      version: checkpoints.get(instanceKey(group.events[0] as StreamEvent)) ?? 0,
    }),
  };
}

/** A multi-source row keeps a checkpoint per source instance, in a map. */
export function multiSourceCheckpoints(): CheckpointStrategy {
  return {
    fromItem: (item) => {
      const checkpoints = new Map<string, number>();
      const map = item[RowAttributes.sources];
      if (typeof map === 'object' && map !== null)
        for (const [instance, version] of Object.entries(map)) if (typeof version === 'number') checkpoints.set(instance, version);
      return { checkpoints, unattributed: undefined, storedCheckpoint: undefined };
    },
    withField: (fields) => ({ ...fields }),
    mark: (item, checkpoints) => {
      item[RowAttributes.sources] = Object.fromEntries(checkpoints);
    },
    condition: () => undefined,
    forGroup: (_projection, _group, row) => row.checkpoints,
    sourcesOfTooLarge: (instances) => instances,
    outcome: (handled, _group, checkpoints) => ({ ...handled, sources: Object.fromEntries(checkpoints) }),
  };
}

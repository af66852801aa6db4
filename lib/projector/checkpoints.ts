import { MultipleSourcesError } from '../errors';
import { instanceKey, type StreamEvent } from '../store';
import { RowAttributes } from '../read-model';
import type { CheckpointField } from './checkpoint-field';
import type { CheckpointStrategy } from './engine';

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

import { Attr, inSpan, streamSpan } from '../../telemetry';
import { formatStreamId, type StreamDefinition } from '../stream-definition';
import type { StreamEvent } from '../types';
import type { Decider, LoadOptions, Loaded } from './load-options';
import { loadState, readConsistency } from './load-state';

/** The load action (`EventStream.load`): folds the stream instance from its latest snapshot (if `snapshot` is given) plus the newer events. */
export async function load<State>(
  stream: StreamDefinition,
  id: unknown,
  fold: Pick<Decider<State, StreamEvent, unknown>, 'initial' | 'evolve'>,
  options: LoadOptions<State> = {},
): Promise<Loaded<State>> {
  return inSpan(
    () => streamSpan('load', stream),
    async (span) => {
      const streamId = formatStreamId(stream, id);
      span.set({ [Attr.streamId]: streamId });
      const loaded = await loadState(stream, streamId, fold, options, readConsistency(options.consistent, true));
      span.set({ [Attr.version]: loaded.version });
      return loaded;
    },
  );
}

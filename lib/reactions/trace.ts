import type { StreamEvent } from '../store';
import { Attr, inChildSpan, type SpanSpec } from '../telemetry';

/**
 * The span of one event's effects, planned within a row's write (`react <reaction>`): a child of the row's
 * span, linked to the append of the event that caused them. The commits the effects append store its
 * context, so a target's event leads back, through it, to the append of the source event.
 */
function reactSpan(reaction: string, event: StreamEvent): SpanSpec {
  return {
    name: `react ${reaction}`,
    kind: 'internal',
    attributes: { [Attr.projection]: reaction, [Attr.streamName]: event.streamName, [Attr.streamId]: event.streamId, [Attr.version]: event.version },
  };
}

/** Runs the planning of `event`'s effects inside its span (see {@link reactSpan}); no span where the row's is not traced. */
export function inReactSpan<T>(reaction: string, event: StreamEvent, plan: () => Promise<T>): Promise<T> {
  return inChildSpan(
    () => reactSpan(reaction, event),
    async (span) => {
      if (span.recording) span.link([event]);
      return plan();
    },
  );
}

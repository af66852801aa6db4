import { z } from 'zod';
import type { StreamEvent } from '../../store';
import type { FiredTimer } from '../reaction-options';

/**
 * What a workflow instance's stream records, one event each: an input received (or ignored, once the
 * instance completed), then the outputs its `decide` answered. Its state is the fold of these.
 */
const recordedEvent = z.object({
  streamName: z.string(),
  streamId: z.string(),
  version: z.number(),
  type: z.string(),
  data: z.unknown(),
  timestamp: z.string(),
});
const recordedTimer = z.object({ name: z.string(), at: z.number(), id: z.string(), data: z.unknown().optional() });
// A plain union, not z.discriminatedUnion: the published declarations spell this type out, and
// ZodDiscriminatedUnion takes one type argument in older zod 4 releases, two in newer ones.
const recordedInput = z.union([
  z.object({ type: z.literal('event'), event: recordedEvent }),
  z.object({ type: z.literal('timer'), timer: recordedTimer }),
]);
const appended = z.object({ stream: z.string(), streamId: z.string(), events: z.array(z.object({ type: z.string(), version: z.number() })) });

/** The event schemas of every workflow's stream. */
export const workflowEvents = {
  InputReceived: z.object({ input: recordedInput }),
  InputIgnored: z.object({ input: recordedInput }),
  CommandSent: appended,
  EventsAppended: appended,
  MessageSent: z.object({ table: z.string(), id: z.string() }),
  TimerScheduled: z.object({ timer: z.string(), at: z.number(), data: z.unknown().optional() }),
  TimerCancelled: z.object({ timer: z.string() }),
  Completed: z.object({}),
};

/** An input as recorded. */
export type RecordedInput = z.output<typeof recordedInput>;

/** An input of a workflow instance: an event its `correlate` routed to it, or one of its timers firing. */
export type WorkflowInput<E = StreamEvent> = { readonly type: 'event'; readonly event: E } | { readonly type: 'timer'; readonly timer: FiredTimer };

/** An output of a workflow instance as its stream records it (what `decide` answered, and what each did). */
export type WorkflowOutput =
  | {
      readonly type: 'command' | 'append';
      readonly stream: string;
      readonly streamId: string;
      /** The events it appended (none when the command decided nothing). */
      readonly events: ReadonlyArray<{ readonly type: string; readonly version: number }>;
    }
  | { readonly type: 'message'; readonly table: string; readonly id: string }
  | { readonly type: 'schedule'; readonly timer: string; readonly at: number; readonly data?: unknown }
  | { readonly type: 'cancel'; readonly timer: string }
  | { readonly type: 'complete' };

/** What a workflow's `evolve` folds: its inputs and its outputs, in the order its stream recorded them. */
export type WorkflowMessage<E = StreamEvent> = WorkflowInput<E> | WorkflowOutput;

/** An input as the stream records it. */
export function recordInput(input: WorkflowInput): RecordedInput {
  if (input.type === 'timer') {
    const { name, at, id, data } = input.timer;
    return { type: 'timer', timer: { name, at, id, ...(data === undefined ? {} : { data }) } };
  }
  const { streamName, streamId, version, type, data, timestamp } = input.event;
  return { type: 'event', event: { streamName, streamId, version, type, data, timestamp } };
}

/** A recorded input as `decide` and `evolve` see it again. */
export function inputOf(recorded: RecordedInput): WorkflowInput {
  if (recorded.type === 'timer') return { type: 'timer', timer: recorded.timer };
  return { type: 'event', event: recorded.event };
}

/** The recorded output of a workflow's stream event; `undefined` for an input. */
export function outputOf(event: StreamEvent): WorkflowOutput | undefined {
  const data = event.data as never;
  switch (event.type) {
    case 'CommandSent':
      return { type: 'command', ...(data as { stream: string; streamId: string; events: [] }) };
    case 'EventsAppended':
      return { type: 'append', ...(data as { stream: string; streamId: string; events: [] }) };
    case 'MessageSent':
      return { type: 'message', ...(data as { table: string; id: string }) };
    case 'TimerScheduled':
      return { type: 'schedule', ...(data as { timer: string; at: number }) };
    case 'TimerCancelled':
      return { type: 'cancel', ...(data as { timer: string }) };
    case 'Completed':
      return { type: 'complete' };
    default:
      return undefined;
  }
}

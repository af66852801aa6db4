import fc from 'fast-check';
import { MissingEventsError, type AnyEventStream, type StreamEvent } from 'dynafold';
import { callContext } from '../../../lib/projector/engine/call-context';
import { eventsAbove } from '../../../lib/projector/engine/read-gaps';
import { propertySettings } from '../../support/delivery';

// Filling a row's gap, without DynamoDB: the stream stands in as an object that answers `readFrom` from a
// list of events, and counts the reads. The call holds some versions; a read fetches the rest, once.
const eventAt = (version: number): StreamEvent => ({ streamName: 'S', streamId: 'x', version, type: 'Happened', data: {}, timestamp: '' });

function streamOf(stored: ReadonlyArray<StreamEvent>) {
  const reads: Array<{ after: number; to: number | undefined }> = [];
  const stream = {
    name: 'S',
    readFrom: async (_id: string, after: number, options: { toVersion?: number } = {}) => {
      reads.push({ after, to: options.toVersion });
      return stored.filter((each) => each.version > after && each.version <= (options.toVersion ?? Infinity));
    },
  };
  return { stream: stream as unknown as AnyEventStream, reads };
}

const world = fc
  .record({ head: fc.integer({ min: 1, max: 8 }), held: fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 8 }) })
  .chain(({ head, held }) =>
    fc.record({
      head: fc.constant(head),
      held: fc.constant(held.filter((version) => version <= head)),
      checkpoint: fc.integer({ min: 0, max: head - 1 }),
      highest: fc.integer({ min: 1, max: head }),
    }),
  )
  .filter(({ checkpoint, highest }) => highest > checkpoint);

test('the events above a checkpoint come in order, from the call when it holds them all, else from one read of what it lacks', async () => {
  await fc.assert(
    fc.asyncProperty(world, async ({ head, held, checkpoint, highest }) => {
      const { stream, reads } = streamOf(Array.from({ length: head }, (_, index) => eventAt(index + 1)));
      const call = callContext<StreamEvent>(new Map([['S#x', new Map(held.map((version) => [version, eventAt(version)]))]]));
      const events = await eventsAbove(stream, 'x', call, checkpoint, highest);
      expect(events.map((each) => each.version)).toEqual(Array.from({ length: highest - checkpoint }, (_, index) => checkpoint + 1 + index));
      const holdsAll = events.every((each) => held.includes(each.version));
      // The one read spans the versions not in hand, from the first to the last of them.
      const missing = events.map((each) => each.version).filter((version) => !held.includes(version));
      expect(reads).toEqual(holdsAll ? [] : [{ after: (missing[0] as number) - 1, to: missing[missing.length - 1] }]);
      expect(call.stats.gapReads).toBe(holdsAll ? 0 : 1);
      // What was read is kept in hand: asking again reads nothing.
      await eventsAbove(stream, 'x', call, checkpoint, highest);
      expect(reads.length).toBe(holdsAll ? 0 : 1);
    }),
    propertySettings(300),
  );
});

test('a gap the stream cannot fill is a MissingEventsError naming the versions', async () => {
  const { stream } = streamOf([eventAt(1), eventAt(3)]);
  await expect(eventsAbove(stream, 'x', callContext<StreamEvent>(), 0, 3)).rejects.toThrow(MissingEventsError);
});

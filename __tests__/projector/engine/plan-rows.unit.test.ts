import fc from 'fast-check';
import type { StreamEvent } from 'dynafold';
import type { Entry } from '../../../lib/outcome';
import { planRows } from '../../../lib/projector/engine/plan-rows';
import { instanceKey } from '../../../lib/store/layout';
import { propertySettings } from '../../support/delivery';

// Planning a call's events per row, without DynamoDB: two streams of two instances, versions that repeat
// (redeliveries) and arrive in any order, keys that collide across instances, ignore events or throw.
const event: fc.Arbitrary<StreamEvent> = fc.record({
  streamName: fc.constantFrom('A', 'B'),
  streamId: fc.constantFrom('a', 'b'),
  version: fc.integer({ min: 1, max: 4 }),
  type: fc.constantFrom('Kept', 'Ignored', 'Refused'),
  data: fc.constant({}),
  timestamp: fc.constant('2026-01-01T00:00:00.000Z'),
});
const entries: fc.Arbitrary<Entry<StreamEvent>[]> = fc
  .array(event, { maxLength: 20 })
  .map((events) => events.map((each, position) => ({ event: each, position })));

/** Rows keyed by stream id alone, so that both streams' instances of an id feed one row. */
function keyOf(event: StreamEvent): { id: string } | undefined {
  if (event.type === 'Refused') throw new Error('no key');
  return event.type === 'Ignored' ? undefined : { id: event.streamId };
}
const plan = (input: ReadonlyArray<Entry<StreamEvent>>) => planRows(input, keyOf, (key) => JSON.stringify(key));
const identity = (each: StreamEvent) => `${instanceKey(each)}@${each.version}`;

test('every entry is in exactly one row, ignored, or a key failure', () => {
  fc.assert(
    fc.property(entries, (input) => {
      const planned = plan(input);
      const placed = [
        ...[...planned.rows.values()].flatMap((row) => row.positions),
        ...planned.ignored.map((entry) => entry.position),
        ...planned.keyFailures.map((failure) => failure.entry.position),
      ].sort((a, b) => a - b);
      expect(placed).toEqual(input.map((entry) => entry.position));
      for (const row of planned.rows.values())
        for (const position of row.positions) expect(keyOf((input[position] as Entry<StreamEvent>).event)).toEqual(row.key);
    }),
    propertySettings(300),
  );
});

test("a row's events are in version order, without duplicates, and every event addressing it is there", () => {
  fc.assert(
    fc.property(entries, (input) => {
      for (const row of plan(input).rows.values()) {
        const versions = row.events.map((each) => each.version);
        expect(versions).toEqual([...versions].sort((a, b) => a - b));
        expect(new Set(row.events.map(identity)).size).toBe(row.events.length);
        const addressing = new Set(row.positions.map((position) => identity((input[position] as Entry<StreamEvent>).event)));
        expect(new Set(row.events.map(identity))).toEqual(addressing);
      }
    }),
    propertySettings(300),
  );
});

test('every event of the call is in hand, whatever row it addresses', () => {
  fc.assert(
    fc.property(entries, (input) => {
      const { inHand } = plan(input);
      for (const { event: each } of input) expect(inHand.get(instanceKey(each))?.get(each.version)).toBeDefined();
    }),
    propertySettings(300),
  );
});

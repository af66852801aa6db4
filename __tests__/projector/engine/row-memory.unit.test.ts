import { RowMemory } from '../../../lib/projector/engine/row-memory';
import type { Key, RowGroup } from '../../../lib/projector/engine/plan-rows';
import type { StreamEvent } from '../../../lib/store';

// A group of one instance's events from `version` on: all `take` looks at (through `absentFor`).
const group = (version: number) => ({ events: [{ version }] }) as unknown as RowGroup<StreamEvent, Key>;

test('a row is taken once, as last kept; nothing is known of a row never kept', () => {
  const memory = new RowMemory({ rows: 10 });
  expect(memory.take('a', group(2))).toBeUndefined();
  memory.keep('a', { n: 1 });
  memory.keep('a', { n: 2 });
  expect(memory.take('a', group(3))).toEqual({ item: { n: 2 } });
  // Taken out: a second call on the row reads it.
  expect(memory.take('a', group(3))).toBeUndefined();
});

test('past its bound the least recently written row is dropped', () => {
  const memory = new RowMemory({ rows: 2 });
  memory.keep('a', { n: 1 });
  memory.keep('b', { n: 1 });
  memory.keep('a', { n: 2 });
  memory.keep('c', { n: 1 });
  expect(memory.size).toBe(2);
  expect(memory.take('b', group(2))).toBeUndefined();
  expect(memory.take('a', group(3))).toEqual({ item: { n: 2 } });
  expect(memory.take('c', group(2))).toEqual({ item: { n: 1 } });
});

test('a row of no remembered write is taken as absent where the kind of row says so, and only there', () => {
  const memory = new RowMemory({ rows: 10, absentFor: (g) => g.events[0]?.version === 1 });
  expect(memory.take('a', group(1))).toBe('absent');
  expect(memory.take('a', group(2))).toBeUndefined();
  memory.keep('a', { n: 1 });
  expect(memory.take('a', group(1))).toEqual({ item: { n: 1 } });
});

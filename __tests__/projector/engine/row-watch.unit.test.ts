import { RowWatch } from '../../../lib/projector/engine/row-watch';
import type { ReadRow } from '../../../lib/projector/engine/read-rows';

// Watching a row another writer brings forward in several writes, without DynamoDB: a row is its
// checkpoint and its `more` mark, time is given, and the call's events end at version 50.
const rowAt = (checkpoint: number, more: boolean) => ({ checkpoint, more }) as unknown as ReadRow<unknown>;
const at = (row: ReadRow<unknown>) => (row as unknown as { checkpoint: number }).checkpoint;

function watchOf(stallMs = 1000) {
  return new RowWatch<unknown>({
    moved: (before, now) => at(now) > at(before),
    covers: (row) => at(row) >= 50,
    stallMs,
    backoff: { initialMs: 10, maxMs: 40 },
  });
}

test('a row without the mark is never watched: the fold writes it', () => {
  expect(watchOf().holdsOff(rowAt(10, false), 0)).toBe(false);
});

test('a marked row that covers the call is not watched: nothing is left to write', () => {
  expect(watchOf().holdsOff(rowAt(60, true), 0)).toBe(false);
});

test('a marked row is watched while it moves, and until it stops for the stall time', () => {
  const watch = watchOf(1000);
  expect(watch.holdsOff(rowAt(10, true), 0)).toBe(true);
  expect(watch.holdsOff(rowAt(10, true), 999)).toBe(true);
  expect(watch.holdsOff(rowAt(20, true), 1500)).toBe(true); // moved: the stall time counts from here
  expect(watch.holdsOff(rowAt(20, true), 2400)).toBe(true);
  expect(watch.holdsOff(rowAt(20, true), 8000)).toBe(false); // stopped: taken over
});

test("the stall time stretches to three times the writer's longest step between two writes", () => {
  const watch = watchOf(1000);
  expect(watch.holdsOff(rowAt(10, true), 0)).toBe(true);
  expect(watch.holdsOff(rowAt(20, true), 2000)).toBe(true); // a step of 2 s
  expect(watch.holdsOff(rowAt(20, true), 7900)).toBe(true); // within 6 s of the last move
  expect(watch.holdsOff(rowAt(20, true), 8100)).toBe(false);
});

test('the mark gone, the watch ends; a new mark starts a new watch', () => {
  const watch = watchOf(1000);
  expect(watch.holdsOff(rowAt(10, true), 0)).toBe(true);
  expect(watch.holdsOff(rowAt(30, false), 100)).toBe(false);
  expect(watch.holdsOff(rowAt(30, true), 5000)).toBe(true); // unmoved since the last watch, but a new one
});

test('the wait between reads grows with the backoff and stays under its cap', () => {
  const watch = watchOf();
  const delays = Array.from({ length: 8 }, () => watch.delay());
  expect(delays[0]).toBeLessThanOrEqual(10);
  for (const delay of delays) expect(delay).toBeLessThanOrEqual(40);
  expect(delays.slice(4).every((delay) => delay >= 20)).toBe(true); // equal jitter: at least half the cap
});

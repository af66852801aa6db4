import fc from 'fast-check';
import { isoTime } from '../../lib/util';

describe('the append time of a decoded event', () => {
  test('is written as Date.prototype.toISOString writes it, for any epoch milliseconds a Date holds', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
    );
  });

  test('is written as toISOString writes it for the years 1970 to 9999, which it computes itself', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), fc.nat(86_400_000), (ms, later) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
        expect(isoTime(ms + later)).toBe(new Date(ms + later).toISOString());
      }),
      { numRuns: 1000 },
    );
  });

  test('is right at the bounds of days, leap days, years and the cached second', () => {
    const edges = [0, 999, 1000, 86_399_999, 951_782_400_000, 951_868_799_999, 4_107_542_400_000, 253_402_300_799_999, 253_402_300_800_000, -1];
    const near = edges.flatMap((ms) => [ms - 1, ms, ms + 1]);
    // Twice in a row and interleaved: the second's prefix is cached between calls.
    for (const ms of [...near, ...near.reverse()]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  test('of events appended within the same second differs only in its milliseconds', () => {
    const second = Date.parse('2026-12-05T03:21:23.000Z');
    expect([0, 7, 45, 999].map((ms) => isoTime(second + ms))).toEqual([
      '2026-12-05T03:21:23.000Z',
      '2026-12-05T03:21:23.007Z',
      '2026-12-05T03:21:23.045Z',
      '2026-12-05T03:21:23.999Z',
    ]);
  });
});

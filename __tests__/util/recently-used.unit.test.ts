import { RecentlyUsed } from '../../lib/util';

describe('RecentlyUsed', () => {
  test('keeps its most recently used keys, a read counting as a use', () => {
    const recent = new RecentlyUsed<number>(2);
    recent.set('a', 1);
    recent.set('b', 2);
    expect(recent.get('a')).toBe(1); // now b is the least recently used
    recent.set('c', 3);
    expect([recent.get('a'), recent.get('b'), recent.get('c')]).toEqual([1, undefined, 3]);
    recent.set('a', 4); // a set moves it too
    recent.set('d', 5);
    expect([recent.get('a'), recent.get('c'), recent.get('d')]).toEqual([4, undefined, 5]);
  });

  test('a capacity of 0 keeps nothing', () => {
    const recent = new RecentlyUsed<number>(0);
    recent.set('a', 1);
    expect(recent.get('a')).toBeUndefined();
  });
});

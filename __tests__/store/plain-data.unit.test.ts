import { attributeIssues, jsonIssues } from '../../lib/store/plain-data';

test('each issue names the path to its value, in field order, stopping at ten', () => {
  const data = {
    ok: [1, 'two', { three: 3 }],
    at: new Date(0),
    deep: { list: [{ n: Number.NaN }, { m: 1n }], fine: true, gone: undefined },
    '': 'empty name',
  };
  expect(jsonIssues(data, ['data'])).toEqual([
    { path: ['data', 'at'], message: expect.stringContaining('is a Date') },
    { path: ['data', 'deep', 'list', 0, 'n'], message: 'is NaN, which JSON turns into null' },
    { path: ['data', 'deep', 'list', 1, 'm'], message: expect.stringContaining('bigint') },
  ]);
  expect(attributeIssues({ a: { '': 1, b: [2 ** 60] } }, [3, 'data']).map((issue) => issue.path)).toEqual([
    [3, 'data', 'a'],
    [3, 'data', 'a', 'b', 0],
  ]);
  expect(
    jsonIssues(
      Array.from({ length: 30 }, () => undefined),
      [],
    ).map((issue) => issue.path),
  ).toEqual(Array.from({ length: 10 }, (_, index) => [index]));
  expect(jsonIssues({ plain: { a: [1, { b: 'c' }], d: null } }, ['data'])).toEqual([]);
});

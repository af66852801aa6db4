import { OwnedMemo } from '../../lib/util';

describe('OwnedMemo', () => {
  test('makes a key once per owner while kept, and starts over once an owner is full', () => {
    const memo = new OwnedMemo<object, string>(2);
    const [a, b] = [{}, {}];
    let made = 0;
    const make = (text: string) => () => `${text}${++made}`;
    expect(memo.get(a, 'x', make('x'))).toBe('x1');
    expect(memo.get(a, 'x', make('x'))).toBe('x1');
    expect(memo.get(b, 'x', make('x'))).toBe('x2'); // another owner's own
    expect(memo.get(a, 'y', make('y'))).toBe('y3');
    expect(memo.get(a, 'z', make('z'))).toBe('z4'); // a was full: its results are dropped
    expect(memo.get(a, 'x', make('x'))).toBe('x5');
    expect(memo.get(b, 'x', make('x'))).toBe('x2');
  });
});

import { RowTurns } from '../../../lib/projector/engine/row-turns';

test('calls on one row take it in the order they started, each handed the row as the one before left it', async () => {
  const turns = new RowTurns(60_000);
  const [first] = turns.enter(['a']);
  const [second] = turns.enter(['a']);
  const [third] = turns.enter(['a']);
  expect([first?.waits, second?.waits, third?.waits]).toEqual([false, true, true]);
  const order: string[] = [];
  const taken = Promise.all([
    second?.taken().then((row) => order.push(`second ${JSON.stringify(row)}`)),
    third?.taken().then((row) => order.push(`third ${JSON.stringify(row)}`)),
  ]);
  first?.leave({ item: { n: 1 } });
  first?.release();
  await Promise.resolve();
  second?.leave('absent');
  second?.release();
  await taken;
  expect(order).toEqual(['second {"item":{"n":1}}', 'third "absent"']);
  third?.release();
  expect(turns.size).toBe(0);
});

test("a call's rows are entered at once; rows no other call has are not waited for", async () => {
  const turns = new RowTurns(60_000);
  const [a, b] = turns.enter(['a', 'b']);
  const [b2, c] = turns.enter(['b', 'c']);
  expect([a?.waits, b?.waits, b2?.waits, c?.waits]).toEqual([false, false, true, false]);
  await expect(c?.taken()).resolves.toBeUndefined();
  b?.leave({ item: { b: 1 } });
  b?.release();
  // Released twice: the second changes nothing.
  b?.leave(undefined);
  b?.release();
  await expect(b2?.taken()).resolves.toEqual({ item: { b: 1 } });
  for (const turn of [a, b2, c]) turn?.release();
  expect(turns.size).toBe(0);
});

test('a turn is taken anyway after the longest wait, or when the call is aborted, knowing nothing of the row', async () => {
  const turns = new RowTurns(20);
  const [held] = turns.enter(['a']);
  const [late] = turns.enter(['a']);
  // The call before never releases: the wait ends on its own.
  await expect(late?.taken()).resolves.toBeUndefined();
  const [aborted] = turns.enter(['a']);
  const controller = new AbortController();
  const waiting = aborted?.taken(controller.signal);
  controller.abort(new Error('cut short'));
  await expect(waiting).resolves.toBeUndefined();
  for (const turn of [held, late, aborted]) turn?.release();
  expect(turns.size).toBe(0);
});

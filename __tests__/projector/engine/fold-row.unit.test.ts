import fc from 'fast-check';
import { removeRow, skipEvent } from 'dynafold';
import { foldRow, type FoldInput, type FoldResult } from '../../../lib/projector/engine/fold-row';
import { propertySettings } from '../../support/delivery';

// The fold of one row's events, without DynamoDB: events add their version to the state, skip, or remove
// the row (an `add` recreates a removed row); folding is the same in one go as in any two writes.
type Kind = 'add' | 'skip' | 'remove';
interface Event {
  readonly version: number;
  readonly kind: Kind;
}
type State = ReadonlyArray<number>;

const events: fc.Arbitrary<Event[]> = fc
  .array(fc.constantFrom<Kind>('add', 'skip', 'remove'), { maxLength: 12 })
  .map((kinds) => kinds.map((kind, index) => ({ version: index + 1, kind })));

function fold(
  from: { state: State | undefined; removed: boolean; checkpoint: number },
  folded: ReadonlyArray<Event>,
): Promise<FoldResult<State, Event>> {
  const input: FoldInput<State, Event> = {
    ...from,
    events: folded,
    initial: () => [],
    evolve: (state, event) => (event.kind === 'add' ? [...state, event.version] : event.kind === 'skip' ? skipEvent : removeRow),
    recreate: (event) => event.kind === 'add',
  };
  return foldRow(input);
}

const start = { state: undefined, removed: false, checkpoint: 0 };

test('folding the events in one go equals folding those up to any version, then the ones above it', async () => {
  await fc.assert(
    fc.asyncProperty(
      events.chain((all) => fc.tuple(fc.constant(all), fc.integer({ min: 0, max: all.length }))),
      async ([all, split]) => {
        const whole = await fold(start, all);
        const first = await fold(start, all.slice(0, split));
        const rest = await fold({ state: first.state, removed: first.removed, checkpoint: first.version }, all.slice(split));
        expect(rest.state).toEqual(whole.state);
        expect(rest.removed).toBe(whole.removed);
        expect(rest.version).toBe(whole.version);
        expect(rest.lastState ?? first.lastState).toEqual(whole.lastState);
        expect([...first.applied, ...rest.applied]).toEqual(whole.applied);
        expect([...first.skipped, ...rest.skipped]).toEqual(whole.skipped);
      },
    ),
    propertySettings(200),
  );
});

test('every event is applied or skipped once, and the checkpoint is the last one applied', async () => {
  await fc.assert(
    fc.asyncProperty(events, async (all) => {
      const folded = await fold(start, all);
      expect([...folded.applied, ...folded.skipped].map((event) => event.version).sort((a, b) => a - b)).toEqual(all.map((event) => event.version));
      expect(folded.version).toBe(folded.applied.at(-1)?.version ?? 0);
      expect(folded.changed).toBe(folded.applied.length > 0);
    }),
    propertySettings(200),
  );
});

test('an event evolve throws for stops the fold with what came before it', async () => {
  const failing = { version: 3, kind: 'add' as const };
  await expect(
    foldRow<State, Event>({
      ...start,
      events: [{ version: 1, kind: 'add' }, { version: 2, kind: 'add' }, failing],
      initial: () => [],
      evolve: (state, event) => {
        if (event === failing) throw new Error('evolve chokes');
        return [...state, event.version];
      },
    }),
  ).rejects.toMatchObject({ event: failing, message: 'evolve chokes', before: { state: [1, 2], version: 2, stopped: true, stoppedAt: failing } });
});

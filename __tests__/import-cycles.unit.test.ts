import { join } from 'node:path';
import { cyclesOf, importGraph, type ImportEdge } from './support/import-graph';

const root = join(__dirname, '..');

/**
 * The one cycle lib/ keeps, between types alone: the error catalogue names each code's class (so that
 * `DynafoldError.is(error, code)` narrows to it, and each module's table of codes names its classes), while
 * the classes extend `DynafoldError`, whose `is` and `status` read the catalogue. The types refer to each
 * other by nature; at run time the catalogue loads the tables of codes and never a class. Dropping the
 * type-only imports to and from the catalogue must leave no cycle.
 */
const CATALOGUE = 'lib/errors/catalogue.ts';
const catalogueTypes = (edge: ImportEdge) => edge.typeOnly && (edge.from === CATALOGUE || edge.to === CATALOGUE);

const describeCycles = (cycles: string[][]) => cycles.map((cycle) => cycle.join(' → '));

test("lib/ has no import cycle, type-only imports included (but for the error catalogue's types)", () => {
  const edges = importGraph(root, 'lib');
  expect(describeCycles(cyclesOf(edges.filter((edge) => !catalogueTypes(edge))))).toEqual([]);
});

test('lib/ has no import cycle at run time', () => {
  const edges = importGraph(root, 'lib');
  expect(describeCycles(cyclesOf(edges.filter((edge) => !edge.typeOnly)))).toEqual([]);
});

test('the import graph sees every form of import: a cycle of type-only imports, re-exports or import() is found', () => {
  const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly });
  expect(cyclesOf([edge('a', 'b', true), edge('b', 'c'), edge('c', 'a', true), edge('c', 'd')])).toEqual([['a', 'b', 'c']]);
  expect(cyclesOf([edge('a', 'a')])).toEqual([['a']]);
  expect(cyclesOf([edge('a', 'b'), edge('b', 'c')])).toEqual([]);
  // The catalogue's own cycle is there, and is the one the exception lets through.
  const errors = importGraph(root, 'lib/errors');
  expect(cyclesOf(errors).flat()).toContain(CATALOGUE);
});

test('the row engine imports none of the features that run it: only its own files and what lies below the projector', () => {
  // `skipEvent` and the projector's defaults are below the engine; every operation, parking and the outbox's writer are above it.
  const below = ['lib/projector/skip.ts', 'lib/projector/defaults.ts'];
  // Beyond the projector, the event store, the read models and the modules every other stands on; no feature (the
  // outbox's relay, personal data's keys, a transport, the feed) nor anything above the projector.
  const modules = ['lib/store/', 'lib/read-model/', 'lib/outcome/', 'lib/dynamo/', 'lib/telemetry/', 'lib/util/', 'lib/errors/'];
  const upward = importGraph(root, 'lib/projector/engine')
    .filter(({ to }) => !to.startsWith('lib/projector/engine/'))
    .filter(({ to }) => ![...below, ...modules].some((path) => to.startsWith(path)))
    .map(({ from, to }) => `${from} → ${to}`);
  expect(upward).toEqual([]);
});

import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { importGraph, sourceFiles } from '../support/import-graph';

const root = join(__dirname, '../..');

/** The commit layer: the one place that sends requests to a stream's events table. */
const COMMITS = 'lib/store/commits/';
/** The read models live beside the store for now: their requests go to their own tables. */
const READ_MODELS = 'lib/store/read-model/';

/** A value (not a type) a file imports by name, with the file or package it comes from. */
interface NamedImport {
  readonly file: string;
  readonly name: string;
  /** A package's name, or the file a relative specifier names (`x.ts` or `x/index.ts`). */
  readonly from: string;
}

function valueImportsOf(file: string): NamedImport[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: NamedImport[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const clause = statement.importClause;
    const bindings = clause?.namedBindings;
    if (clause === undefined || clause.isTypeOnly || bindings === undefined || !ts.isNamedImports(bindings)) continue;
    const specifier = statement.moduleSpecifier.text;
    const from = specifier.startsWith('.') ? relative(root, resolve(root, dirname(file), specifier)) : specifier;
    for (const element of bindings.elements) if (!element.isTypeOnly) found.push({ file, name: element.name.text, from });
  }
  return found;
}

const libImports = sourceFiles(root, 'lib').flatMap(valueImportsOf);
const storeFiles = (imports: ReadonlyArray<NamedImport>) =>
  imports.filter(({ file }) => file.startsWith('lib/store/') && !file.startsWith(READ_MODELS));
const describeImports = (imports: ReadonlyArray<NamedImport>) => [...new Set(imports.map(({ file, name }) => `${file}: ${name}`))].sort();

/** What sends a request: the document client's commands, and lib/dynamo's helpers that send one. */
const SENDERS = new Set(['request', 'getItem', 'sendConditional', 'landedDespite', 'pages']);
const sendsRequests = ({ name, from }: NamedImport) =>
  (from.startsWith('@aws-sdk/') && name.endsWith('Command')) || (from === 'lib/dynamo' && SENDERS.has(name));

test('in the store, only the commit layer sends requests: no other file imports a command or a helper that sends one', () => {
  const senders = storeFiles(libImports).filter(sendsRequests);
  expect(senders.length).toBeGreaterThan(0);
  expect(describeImports(senders.filter(({ file }) => !file.startsWith(COMMITS)))).toEqual([]);
});

test("the commit layer remembers commit ends, loads keys before decoding and knows an append's own commits in one file each", () => {
  const importers = (name: string) => [...new Set(libImports.filter((entry) => entry.name === name).map(({ file }) => file))].sort();
  expect(importers('KnownCommitEnds')).toEqual([`${COMMITS}commit-log.ts`]);
  expect(importers('isCommitOf')).toEqual([`${COMMITS}commit-log.ts`]);
  // Decoders of stream images load the keys of what they decode the same way.
  expect(importers('loadKeysFor')).toEqual([`${COMMITS}commit-log.ts`, 'lib/store/decoder.ts']);
  expect(importers('newWriteId').filter((file) => file.startsWith('lib/store/'))).toEqual([`${COMMITS}commit-log.ts`]);
});

test("the commit layer lies below the stream's definition and its actions, and other modules reach it only through the store's index", () => {
  const edges = importGraph(root, 'lib');
  expect(edges.filter(({ from }) => from.startsWith(COMMITS)).length).toBeGreaterThan(0);
  const upward = edges
    .filter(({ from }) => from.startsWith(COMMITS))
    .filter(({ to }) => /^lib\/store\/(append|read|load|execute|snapshots)\/|^lib\/store\/(event-stream|stream-definition)\.ts$/.test(to))
    .map(({ from, to }) => `${from} → ${to}`);
  expect(upward).toEqual([]);
  const fromOutside = edges
    .filter(({ from, to }) => to.startsWith(COMMITS) && !from.startsWith('lib/store/'))
    .map(({ from, to }) => `${from} → ${to}`);
  expect(fromOutside).toEqual([]);
});

test('the store knows personal data by its port (lib/personal): it imports lib/erasure for the public types alone, and lib/erasure imports no store', () => {
  const edges = importGraph(root, 'lib');
  const storeToErasure = edges.filter(({ from, to }) => from.startsWith('lib/store/') && to.startsWith('lib/erasure/'));
  expect(storeToErasure.length).toBeGreaterThan(0);
  expect(storeToErasure.filter(({ typeOnly }) => !typeOnly).map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
  expect(
    edges.filter(({ from, to }) => from.startsWith('lib/erasure/') && to.startsWith('lib/store/')).map(({ from, to }) => `${from} → ${to}`),
  ).toEqual([]);
  expect(edges.filter(({ from, to }) => from.startsWith('lib/personal/') && !/^lib\/(personal|errors)\//.test(to)).map(({ to }) => to)).toEqual([]);
});

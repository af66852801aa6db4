import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from '../support/import-graph';

// Every write of a row (a fold's whole item, a claim, parking's records) is built and sent by the engine's
// write path, `lib/projector/engine/write-row.ts`, where its condition, its id among the row's last writes
// and its own-result check are said once. These tests read the projector's sources and fail on a second way.

const root = join(__dirname, '../..');
const WRITE_PATH = 'lib/projector/engine/write-row.ts';

/** The SDK's commands that write an item, as the document client and the low-level client name them. */
const WRITE_COMMANDS = /^(Put|Update|Delete|TransactWrite|BatchWrite)(Item|Items)?Command$/;

/** The names a file imports from the AWS SDK's DynamoDB packages. */
function sdkImportsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!statement.moduleSpecifier.text.startsWith('@aws-sdk/')) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings !== undefined && ts.isNamedImports(bindings)) names.push(...bindings.elements.map((element) => element.name.text));
  }
  return names;
}

const projectorFiles = sourceFiles(root, 'lib/projector');

test("in the projector, only the engine's write path sends a write of an item (a backfill's progress store, its own items)", () => {
  // The backfill keeps its progress in items of its own in the read model's table, never in a row.
  const ownItems = ['lib/projector/backfill/progress.ts'];
  const writers = projectorFiles.filter((file) => sdkImportsOf(file).some((name) => WRITE_COMMANDS.test(name)));
  expect(writers.filter((file) => !ownItems.includes(file))).toEqual([WRITE_PATH]);
});

test("in the projector, only the engine's write path builds a write's condition or update", () => {
  const building = projectorFiles.filter((file) => /\b(ConditionExpression|UpdateExpression)\b/.test(readFileSync(join(root, file), 'utf8')));
  expect(building).toEqual([WRITE_PATH]);
});

test("the engine keeps no feature's records: parking's attributes are named by parking alone", () => {
  const parkingAttributes = /RowAttributes\.(failures|parked|skippedEvents)\b/;
  const naming = projectorFiles.filter((file) => parkingAttributes.test(readFileSync(join(root, file), 'utf8')));
  expect(naming.filter((file) => file.startsWith('lib/projector/engine/'))).toEqual([]);
  expect(naming.every((file) => file.startsWith('lib/projector/parking/'))).toBe(true);
});

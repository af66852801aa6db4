/**
 * Every public name of every entry point appears in the API reference: the names each entry point's file
 * exports, as the compiler sees them (types included), against the links of its module page in
 * docs/reference/api. Run by docs:build after TypeDoc; exits non-zero with the names left out.
 *
 *   npx tsx docs/scripts/check-api-reference.ts
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { entryPoints, root } from './entry-points';

/** The names a source file exports (values and types), by the compiler over the repository's tsconfig. */
function exportedNames(files: ReadonlyArray<string>): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (config === undefined) throw new Error('docs: tsconfig.json could not be read');
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  return new Map(
    files.map((file) => {
      const source = program.getSourceFile(file);
      const symbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
      if (symbol === undefined) throw new Error(`docs: ${file} is not a module`);
      return [file, checker.getExportsOfModule(symbol).map((exported) => exported.getName())];
    }),
  );
}

const entries = entryPoints();
const names = exportedNames(entries.map((entry) => join(root, entry.source)));
const missing = entries.flatMap((entry) => {
  const page = join(root, 'docs', 'reference', 'api', entry.name, 'index.md');
  if (!existsSync(page)) return [`${entry.name} (no page: ${page})`];
  // Markdown escapes underscores and strikes deprecated names through (`[~~lambdaHandler~~](…)`); a
  // renaming re-export is a heading of its own (`### ChangeFeedLogger`).
  const text = readFileSync(page, 'utf8').replace(/\\|~~/g, '');
  const listed = (name: string) => text.includes(`[${name}](`) || text.includes(`\n### ${name}\n`);
  return (names.get(join(root, entry.source)) ?? []).filter((name) => !listed(name)).map((name) => `${entry.name}: ${name}`);
});
const total = [...names.values()].reduce((sum, list) => sum + list.length, 0);
if (missing.length > 0) {
  console.error(`docs: the API reference leaves out ${missing.length} of ${total} public names:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
console.log(`docs: the API reference lists all ${total} public names of ${entries.length} entry points`);

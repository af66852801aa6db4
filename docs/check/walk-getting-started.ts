/**
 * Getting started, followed as a newcomer would, in a fresh directory: the page's `sh` blocks run in
 * order (with the packed package for `dynafold`), each file the page shows (a block titled with its path,
 * ```ts [src/orders.ts]) is written there, and what the page says the run prints is checked: a projected
 * row, then a passing spec.
 * Uses the registry's current versions of everything else, as the page's commands do.
 *
 *   npm run docs:walk                       (DYNAFOLD_TARBALL=<path> walks that tarball instead of packing)
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { install, pack, run, show } from '../../package-check/shell';

const docs = join(__dirname, '..');
const root = join(docs, '..');

/** A step of the page: commands of an `sh` block, or a file it shows (a block titled with the file's path). */
type Step = { readonly kind: 'commands'; readonly lines: string[] } | { readonly kind: 'file'; readonly title: string; readonly content: string };

function stepsOf(page: string): Step[] {
  if (/^<<< /m.test(page))
    throw new Error('docs:walk: the page includes a file with <<<, which GitHub does not show: write it out in a titled block');
  const steps: Step[] = [];
  for (const [, info = '', body = ''] of page.matchAll(/^```(.*)\n([\s\S]*?)^```$/gm)) {
    const title = /\[(.+)\]/.exec(info)?.[1];
    if (/^sh\b/.test(info)) steps.push({ kind: 'commands', lines: body.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#')) });
    else if (title !== undefined) steps.push({ kind: 'file', title, content: body });
  }
  return steps;
}

/** Runs one line of an `sh` block in the app: `cd`, `mkdir`, npm and npx; returns the new working directory. */
function runLine(line: string, cwd: string, tarball: string, outputs: string[]): string {
  let here = cwd;
  for (const command of line.split('&&').map((part) => part.trim())) {
    const [program = '', ...args] = command.split(/\s+/);
    if (program === 'mkdir') mkdirSync(join(here, ...args), { recursive: true });
    else if (program === 'cd') here = join(here, ...args);
    else if (program === 'npm' && args[0] === 'install')
      install(
        args.slice(1).map((arg) => (arg === 'dynafold' ? tarball : arg)),
        here,
      );
    else if (program === 'npm' || program === 'npx') outputs.push(run(program, args, here));
    else throw new Error(`docs:walk: the page runs "${command}", which this walk does not know how to follow`);
  }
  return here;
}

function expectOutput(outputs: ReadonlyArray<string>, expected: ReadonlyArray<string>): void {
  const all = outputs.join('\n');
  const missing = expected.filter((text) => !all.includes(text));
  if (missing.length > 0) throw new Error(`docs:walk: the app did not print ${missing.map((text) => JSON.stringify(text)).join(', ')}:\n${all}`);
}

const started = Date.now();
const tarball = pack(root);
let cwd = mkdtempSync(join(tmpdir(), 'dynafold-getting-started-'));
const outputs: string[] = [];
for (const step of stepsOf(readFileSync(join(docs, 'getting-started.md'), 'utf8'))) {
  if (step.kind === 'file') {
    mkdirSync(dirname(join(cwd, step.title)), { recursive: true });
    writeFileSync(join(cwd, step.title), step.content);
    show(`docs:walk: wrote ${step.title}`);
  } else for (const line of step.lines) cwd = runLine(line, cwd, tarball, outputs);
}
// What the page says the run prints, and vitest's verdict.
expectOutput(outputs, ['failed records: 0', "customer: 'ada'", 'items: 1', 'total: 12', 'version: 2', '1 passed']);
show(`docs:walk: ok, Getting started gives a projected row and a passing spec in ${cwd} (${Math.round((Date.now() - started) / 1000)} s)`);

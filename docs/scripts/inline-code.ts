/**
 * The code blocks of the Markdown a reader opens (the README, the docs' pages), inlined from the files that
 * compile: GitHub includes no file, so each block holds its code, and a marker on the line before it names
 * where the code comes from, a file or one region of it:
 *
 *   <!-- code: examples/snippets/app/src/orders.ts -->
 *   <!-- code: examples/snippets/store/model.ts#stream -->
 *
 * A region is the text between `// #region name` and `// #endregion name`, without the region lines of
 * others inside it and with its indentation taken off (as VitePress's `<<<` included them). The fence's
 * info string (language, `[title]`) is the page's; only the code between the fences is written.
 *
 *   npm run docs:code          (writes every block; `__tests__/docs-code.unit.test.ts` fails on one that differs)
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

/** The Markdown files a reader opens: the repository's own, the generated API reference and dependencies aside. */
export function markdownFiles(): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory())
        return ['node_modules', '.git', 'dist', 'reference', '.vitepress', '.screenshots'].includes(entry.name) || entry.name.startsWith('.')
          ? []
          : walk(path);
      return entry.name.endsWith('.md') ? [relative(root, path)] : [];
    });
  return walk(root).sort();
}

/** A marker: the line naming a block's source, `<!-- code: <path>[#<region>] -->`. */
const MARKER = /^<!-- code: ([^\s#]+)(?:#([\w-]+))? -->$/;
const REGION_LINE = /^\s*\/\/ #(end)?region\b/;

/** The code a marker names: the file, or its region without other regions' lines, dedented. */
export function codeOf(
  path: string,
  region: string | undefined,
  read: (path: string) => string = (file) => readFileSync(join(root, file), 'utf8'),
): string {
  const text = read(path);
  if (region === undefined) return text.endsWith('\n') ? text : `${text}\n`;
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trim() === `// #region ${region}`);
  const end = lines.findIndex((line, index) => index > start && line.trim() === `// #endregion ${region}`);
  if (start < 0 || end < 0) throw new Error(`${path} has no region ${region} (// #region ${region} … // #endregion ${region})`);
  const body = lines.slice(start + 1, end).filter((line) => !REGION_LINE.test(line));
  const indent = Math.min(...body.filter((line) => line.trim() !== '').map((line) => line.length - line.trimStart().length));
  return `${body.map((line) => line.slice(Number.isFinite(indent) ? indent : 0)).join('\n')}\n`;
}

/** A marked block of a page: where its source is, and the lines of its fence. */
export interface MarkedBlock {
  readonly source: string;
  readonly region: string | undefined;
  /** The fence's info string: language and `[title]`. */
  readonly info: string;
  readonly code: string;
}

/** A page with every marked block's code written from its source; throws naming a marker with no block after it. */
export function inlined(page: string, file: string, read?: (path: string) => string): { text: string; blocks: MarkedBlock[] } {
  const lines = page.split('\n');
  const out: string[] = [];
  const blocks: MarkedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    out.push(line);
    const marker = MARKER.exec(line);
    if (marker === null) continue;
    const open = lines[i + 1] ?? '';
    const fence = /^(`{3,})(.*)$/.exec(open);
    if (fence === null) throw new Error(`${file}:${i + 1}: the marker ${line} is not followed by a code block`);
    const close = lines.findIndex((candidate, index) => index > i + 1 && candidate === fence[1]);
    if (close < 0) throw new Error(`${file}:${i + 2}: the code block after ${line} is not closed`);
    const [, source = '', region] = marker;
    const code = codeOf(source, region, read);
    blocks.push({ source, region, info: fence[2] ?? '', code });
    out.push(open, ...code.replace(/\n$/, '').split('\n'), fence[1] as string);
    i = close;
  }
  return { text: out.join('\n'), blocks };
}

function main(): void {
  let changed = 0;
  for (const file of markdownFiles()) {
    const page = readFileSync(join(root, file), 'utf8');
    const { text } = inlined(page, file);
    if (text !== page) {
      writeFileSync(join(root, file), text);
      changed++;
      console.log(`docs:code: wrote ${file}`);
    }
  }
  console.log(`docs:code: ${changed === 0 ? 'every block is its source' : `${changed} pages written`}`);
}

if (require.main === module) main();

/**
 * The API reference's code blocks (the TSDoc `@example`s, written for a wide editor), formatted after
 * TypeDoc wrote them to the width of the site's code (see code-width.ts), so none scrolls sideways.
 * Examples are often fragments: `...` stands for code left out, and some are an object's properties
 * alone (`versions: { … }`); both are formatted as what they stand for. A trailing comment that would
 * pass the width goes on a line of its own above its code.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig, type Options } from 'prettier';
import { CODE_COLUMNS } from './code-width';
import { root } from './entry-points';

const PARSERS: Record<string, string> = { ts: 'typescript', typescript: 'typescript', js: 'babel', javascript: 'babel' };

/** `...` where it stands for left-out code (not a spread, which an expression follows). */
const ELLIPSIS = /\.\.\.(?![\w$[({'"`])/g;
const PLACEHOLDER = '__left_out__';

async function tryFormat(code: string, options: Options): Promise<string | undefined> {
  try {
    return (await format(code, options)).trimEnd();
  } catch {
    return undefined;
  }
}

/** The code as a statement list, or else as an object literal's members; `undefined` when it is neither. */
async function formatFragment(code: string, options: Options): Promise<string | undefined> {
  const whole = await tryFormat(code, options);
  if (whole !== undefined) return whole;
  const wrapped = await tryFormat(`({\n${code}\n});`, { ...options, printWidth: CODE_COLUMNS + 2 });
  if (wrapped === undefined) return undefined;
  return wrapped
    .split('\n')
    .slice(1, -1)
    .map((line) => line.replace(/^ {2}/, ''))
    .join('\n');
}

/** A line past the width whose `// comment` ends it becomes the comment's line(s), then the code. */
function liftComments(code: string): string {
  return code
    .split('\n')
    .flatMap((line) => {
      const at = line.indexOf(' // ');
      if (line.length <= CODE_COLUMNS || at < 0 || (line.slice(0, at).match(/['"`]/g) ?? []).length % 2 !== 0) return [line];
      const indent = /^\s*/.exec(line)?.[0] ?? '';
      const words = line.slice(at + 4).split(' ');
      const comments: string[] = [];
      for (const word of words) {
        const last = comments.length - 1;
        if (last >= 0 && `${comments[last]} ${word}`.length <= CODE_COLUMNS) comments[last] = `${comments[last]} ${word}`;
        else comments.push(`${indent}// ${word}`);
      }
      return [...comments, line.slice(0, at).trimEnd()];
    })
    .join('\n');
}

/** A code block formatted to the width, or as it was when Prettier can't read it. */
async function formatted(code: string, parser: string): Promise<string> {
  const options = { ...((await resolveConfig(join(root, 'examples', 'snippet.ts'))) ?? {}), parser, printWidth: CODE_COLUMNS };
  const done = await formatFragment(code.replace(ELLIPSIS, PLACEHOLDER), options);
  return done === undefined ? code : liftComments(done.replaceAll(`${PLACEHOLDER};`, '...').replaceAll(PLACEHOLDER, '...'));
}

/** Formats the TypeScript and JavaScript blocks of the Markdown files under a folder; resolves how many changed. */
export async function formatCodeBlocks(folder: string): Promise<number> {
  let changed = 0;
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    const pattern = /^```(\w+)\n([\s\S]*?)\n```$/gm;
    const next = await Promise.all(
      [...text.matchAll(pattern)].map(([, language = '', code = '']) => {
        const parser = PARSERS[language];
        return parser === undefined ? code : formatted(code, parser);
      }),
    );
    let index = 0;
    const result = text.replace(pattern, (block, language: string, code: string) => {
      const done = next[index++] ?? code;
      if (done === code) return block;
      changed++;
      return `\`\`\`${language}\n${done}\n\`\`\``;
    });
    if (result !== text) writeFileSync(file, result);
  }
  return changed;
}

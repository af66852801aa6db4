/**
 * The install commands of the README's Install section, which the package check runs as they are written
 * (with the packed tarball for `dynafold`): the README's lines are the ones a user follows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The README's install commands: for an app that pins the SDK, and one per optional subpath. */
export interface InstallLines {
  /** `npm install dynafold zod @aws-sdk/lib-dynamodb@<version>`, as arguments after `npm install`. */
  readonly pinned: ReadonlyArray<string>;
  /** The client-dynamodb version the pinned line is written for (its lib-dynamodb's). */
  readonly pinnedClient: string;
  /** The arguments of the line whose comment names the subpath first. */
  optional(subpath: string): ReadonlyArray<string>;
}

interface Command {
  readonly args: ReadonlyArray<string>;
  readonly comment: string;
}

function installSection(readme: string): string {
  const start = readme.indexOf('\n## Install\n');
  const end = readme.indexOf('\n## ', start + 1);
  if (start === -1 || end === -1) throw new Error('package-check: the README has no "## Install" section');
  return readme.slice(start, end);
}

/** The `npm install` lines of the section's sh blocks. */
function commands(section: string): Command[] {
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  return blocks.flatMap((block) =>
    block
      .split('\n')
      .filter((line) => line.startsWith('npm install '))
      .map((line) => {
        const [command = '', comment = ''] = line.split('#');
        return { args: command.trim().split(/\s+/).slice(2), comment: comment.trim() };
      }),
  );
}

export function readInstallLines(root: string): InstallLines {
  const all = commands(installSection(readFileSync(join(root, 'README.md'), 'utf8')));
  const pinned = all.find((command) => command.args.includes('dynafold') && command.args.some((arg) => /^@aws-sdk\/lib-dynamodb@\d/.test(arg)));
  if (pinned === undefined)
    throw new Error('package-check: the README\'s Install section has no "npm install dynafold … @aws-sdk/lib-dynamodb@<version>" line');
  const lib = pinned.args.find((arg) => arg.startsWith('@aws-sdk/lib-dynamodb@')) ?? '';
  return {
    pinned: pinned.args,
    pinnedClient: lib.slice('@aws-sdk/lib-dynamodb@'.length),
    optional(subpath) {
      const line = all.find((command) => /dynafold\/[\w/-]+/.exec(command.comment)?.[0] === subpath);
      if (line === undefined) throw new Error(`package-check: the README's Install section has no line for ${subpath}`);
      return line.args;
    },
  };
}

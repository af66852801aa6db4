import { createInterface } from 'node:readline/promises';
import { ConfigurationError } from '../errors';

/**
 * Whether the user confirmed a command that can't be undone: `--yes` does; else the question is asked on
 * the terminal (y or yes). Without a terminal and without `--yes`, the command is refused (`command` names
 * it in the message), so a script never hangs on a prompt nobody sees.
 */
export async function confirmed(command: string, question: string, yes: boolean | undefined): Promise<boolean> {
  if (yes === true) return true;
  if (process.stdin.isTTY !== true) throw new ConfigurationError(`${command} needs a confirmation: pass --yes when not at a terminal.`);
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

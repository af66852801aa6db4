import Table from 'cli-table3';
import pc from 'picocolors';

/**
 * What a command prints: human output (colours only on a terminal and without NO_COLOR, which
 * picocolors decides) or, with `--json`, one JSON document on stdout. Diagnostics go to stderr.
 */
export class Output {
  constructor(readonly json: boolean) {}

  /** A line for people; nothing in JSON mode. */
  line(text = ''): void {
    if (!this.json) process.stdout.write(`${text}\n`);
  }

  /** The command's data: JSON in JSON mode, else the `human` rendering. */
  data(value: unknown, human: () => void): void {
    if (this.json) process.stdout.write(`${JSON.stringify(value, undefined, 2)}\n`);
    else human();
  }

  /** An aligned table (cli-table3), borders kept plain so it reads the same in logs. */
  table(head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string | number>>): void {
    const table = new Table({ head: head.map((cell) => pc.bold(cell)), style: { head: [], border: [] } });
    table.push(...rows.map((row) => row.map(String)));
    this.line(table.toString());
  }

  /** A line for people about what the command is doing, on stderr: stdout keeps only the data, in JSON mode too. */
  note(text: string): void {
    process.stderr.write(`${text}\n`);
  }

  warn(text: string): void {
    process.stderr.write(`${pc.yellow('!')} ${text}\n`);
  }

  ok(text: string): void {
    this.line(`${pc.green('✔')} ${text}`);
  }
}

export const colours = pc;

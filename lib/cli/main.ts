#!/usr/bin/env node
/**
 * The `dynafold` command (commander): status, tail, backfill and rebuild with a progress bar, parked rows,
 * replay, checkpoints, forgetting a data subject, tables and a local DynamoDB. Every failure is one line on stderr and an exit code
 * (see ExitCodes); `DEBUG=dynafold` adds the stack.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DynafoldError, ErrorCodes, type ErrorCode } from '../errors';
import { CommandContext, type GlobalOptions } from './context';
import { ExitCodes } from './exit-codes';
import { checkpointsResetCommand } from './commands/checkpoints';
import { forgetCommand } from './commands/forget';
import { backfillCommand, rebuildCommand, type LifecycleOptions } from './commands/lifecycle';
import { parkedListCommand, parkedRetryCommand, parkedSkipCommand } from './commands/parked';
import { initCommand, localCommand } from './commands/setup';
import { statusCommand } from './commands/status';
import { tablesCreateCommand } from './commands/tables';
import { replayCommand } from './commands/replay';
import { tailCommand } from './commands/tail';
import { colours } from './output';

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of 1 or more');
  return n;
}

/** Runs a command that needs the config, closing its clients after. */
function withContext<A extends unknown[]>(run: (context: CommandContext, ...args: A) => Promise<number>) {
  return async (...args: [...A, Command]) => {
    const command = args[args.length - 1] as Command;
    const context = await CommandContext.open(command.optsWithGlobals<GlobalOptions>());
    try {
      // The positional arguments and the command's own options; commander passes the Command last.
      process.exitCode = await run(context, ...(args.slice(0, -1) as A));
    } finally {
      context.close();
    }
  };
}

function lifecycleOptions(command: Command): Command {
  return command
    .option('--segments <n>', 'parallel Scan segments per events table', positiveInteger)
    .option('--concurrency <n>', 'stream instances applied at once', positiveInteger)
    .option('--rps <n>', 'requests per second it may send (leave capacity to production)', positiveInteger);
}

/** The package's version, from its package.json (two folders up from lib/cli and dist/cli alike). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
}

export function program(): Command {
  const cli = new Command('dynafold')
    .description('Event streams, projections and change feeds on DynamoDB')
    .version(packageVersion())
    .addOption(new Option('-c, --config <file>', 'the config file (default: dynafold.config.ts here or above)'))
    // DYNAMODB_ENDPOINT is the test kit's variable too: one `export` points the command and the tests at `dynafold local`.
    .addOption(new Option('--endpoint <url>', 'DynamoDB endpoint (DynamoDB Local, say)').env('DYNAMODB_ENDPOINT'))
    .option('--region <region>', 'AWS region')
    .option('--profile <name>', 'AWS profile')
    .option('--json', 'print data as JSON, for scripts')
    // Subcommands inherit the setting (commander copies it to each `command()`): their help lists these options too.
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError()
    .exitOverride();

  cli
    .command('init')
    .description('write a starter dynafold.config.ts')
    .option('--force', 'overwrite an existing one')
    .action((options: { force?: boolean }, command: Command) => void (process.exitCode = initCommand({ ...command.optsWithGlobals(), ...options })));
  cli
    .command('local')
    .description('run DynamoDB Local (one shared database) until Ctrl-C')
    .option('--port <n>', 'port (default: 8000)', positiveInteger)
    .action(
      async (options: { port?: number }, command: Command) =>
        void (process.exitCode = await localCommand({ ...command.optsWithGlobals(), ...options })),
    );
  cli
    .command('tables')
    .description('the configured tables')
    .command('create')
    .description('create the events, read-model, outbox, checkpoint and subject key tables that do not exist yet')
    .action(withContext((context) => tablesCreateCommand(context)));
  cli
    .command('status')
    .description("feeds' leases, checkpoints and lag; projections' parked rows (exit 3 when something fails)")
    .action(withContext((context) => statusCommand(context)));
  cli
    .command('tail <stream>')
    .description('print events as they are appended (no consumer checkpoint moves)')
    .option('--from-start', 'print what the stream holds first')
    .option('--limit <n>', 'stop after this many events', positiveInteger)
    .action(withContext((context, stream: string, options: { fromStart?: boolean; limit?: number }) => tailCommand(context, stream, options)));
  lifecycleOptions(
    cli.command('backfill <projection>').description('bring every row up to date over the whole history (resumable, Ctrl-C keeps progress)'),
  )
    .option('--restart', 'forget saved progress and start over')
    .option('--run <name>', 'names the saved progress (two backfills of one projection at once)')
    .action(withContext((context, name: string, options: LifecycleOptions) => backfillCommand(context, name, options)));
  lifecycleOptions(
    cli
      .command('rebuild <projection> [streamId]')
      .description(
        "re-derive the rows of a single-source projection in place (a changed evolve), or of one stream instance's (a forgotten subject's)",
      ),
  ).action(
    withContext((context, name: string, streamId: string | undefined, options: LifecycleOptions) => rebuildCommand(context, name, streamId, options)),
  );
  const parked = cli.command('parked').description('rows set aside by a poison policy');
  parked
    .command('list <projection>')
    .description("a projection's parked rows: key, event, error and attempts")
    .action(withContext((context, name: string) => parkedListCommand(context, name)));
  parked
    .command('retry <projection> [key]')
    .description('replay a parked row (key as JSON), or every parked row')
    .action(withContext((context, name: string, key: string | undefined) => parkedRetryCommand(context, name, key)));
  parked
    .command('skip <projection> <key>')
    .description('move a parked row past its failing event, on purpose')
    .action(withContext((context, name: string, key: string) => parkedSkipCommand(context, name, key)));
  cli
    .command('replay <file>')
    .description('process Lambda OnFailure messages again (a file, or - for stdin)')
    .action(withContext((context, file: string) => replayCommand(context, file)));
  cli
    .command('forget <subject>')
    .description("forget a data subject: delete its key, so its personal data reads redacted everywhere (can't be undone)")
    .option('-y, --yes', 'do not ask for confirmation')
    .action(withContext((context, subject: string, options: { yes?: boolean }) => forgetCommand(context, subject, options)));
  cli
    .command('checkpoints')
    .description("a feed's checkpoints")
    .command('reset <feed>')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(withContext((context, feed: string, options: { yes?: boolean }) => checkpointsResetCommand(context, feed, options)));
  return cli;
}

/** The SDK's missing-credentials error, thrown or kept as the `cause` of one of ours (a DynamoDB request that failed). */
function credentialsError(error: unknown): Error | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current.name === 'CredentialsProviderError') return current;
  }
  return undefined;
}

/** The SDK's words (which say nothing of what to do), then what to do: a first run has no credentials. */
function credentialsHint(error: Error, profile: string | undefined): string {
  const sdk = error.message.split('\n')[0]?.replace(/\.?\s*$/, '');
  const local = 'run `npx dynafold local` and pass --endpoint http://127.0.0.1:8000 (or set DYNAMODB_ENDPOINT to it)';
  return profile === undefined
    ? `${sdk}. For DynamoDB Local, ${local}; for AWS, set AWS_PROFILE (or pass --profile) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.`
    : `${sdk} with profile ${profile}. Check that ~/.aws/credentials or ~/.aws/config has it (\`aws configure --profile ${profile}\`); for DynamoDB Local, ${local}.`;
}

/**
 * One line for people, and the exit code that says what kind of failure it was. Errors are told apart by
 * their `code`, not their class: the config may load its own copy of the library.
 */
function report(error: unknown, profile: string | undefined): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCodes.ok : ExitCodes.usage;
  const { line, exitCode } = explained(error, profile);
  process.stderr.write(`${colours.red('✖')} ${line}\n`);
  if (process.env['DEBUG']?.includes('dynafold') === true && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return exitCode;
}

/** The error's line (without the mark) and exit code: missing credentials are set-up, like a missing config. */
function explained(error: unknown, profile: string | undefined): { line: string; exitCode: number } {
  const credentials = credentialsError(error);
  if (credentials !== undefined) return { line: `credentials: ${credentialsHint(credentials, profile)}`, exitCode: ExitCodes.usage };
  const code = (error as { code?: unknown } | undefined)?.code;
  const dynafold = error instanceof DynafoldError || (typeof code === 'string' && ErrorCodes.includes(code as ErrorCode));
  const usage = dynafold && (code === 'configuration' || code === 'store.validation');
  const message = error instanceof Error ? error.message : String(error);
  const name = dynafold ? String(code) : error instanceof Error ? error.name : 'error';
  return { line: `${name}: ${message.split('\n')[0]}`, exitCode: usage ? ExitCodes.usage : ExitCodes.failed };
}

export async function main(argv: ReadonlyArray<string>): Promise<number> {
  const cli = program();
  try {
    await cli.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCodes.ok;
  } catch (error) {
    return report(error, cli.opts<GlobalOptions>().profile ?? process.env['AWS_PROFILE']);
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

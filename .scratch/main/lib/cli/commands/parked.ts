import { ConfigurationError } from '../../errors';
import type { ParkedRow } from '../../projector';
import type { CommandContext } from '../context';
import { ExitCodes } from '../exit-codes';

/** A row key given on the command line as JSON: `'{"orderId":"o-1"}'`. */
export function parseKey(text: string | undefined): Readonly<Record<string, unknown>> | undefined {
  if (text === undefined) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(text);
  } catch {
    throw new ConfigurationError(`The key ${text} is not JSON: give the row's key fields, e.g. '{"orderId":"o-1"}'.`);
  }
  if (typeof key !== 'object' || key === null || Array.isArray(key))
    throw new ConfigurationError(`The key ${text} must be a JSON object of the row's key fields.`);
  return key as Readonly<Record<string, unknown>>;
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** `dynafold parked list <projection>`. */
export async function parkedListCommand(context: CommandContext, name: string): Promise<number> {
  const rows: ParkedRow<unknown>[] = [];
  for await (const row of context.projection(name).parkedRows()) rows.push(row);
  context.out.data(rows, () => {
    if (rows.length === 0) return context.out.ok(`${name}: no parked rows`);
    context.out.table(
      ['key', 'event', 'error', 'attempts', 'last failure'],
      rows.map((row) => [
        JSON.stringify(row.key),
        `${row.event.streamName}#${row.event.streamId}@${row.event.version} ${row.event.type}`,
        `${row.error.name}: ${row.error.message}`,
        row.attempts,
        row.lastFailureAt,
      ]),
    );
  });
  return ExitCodes.ok;
}

/** `dynafold parked retry <projection> [key]`: replays one parked row, or every one. */
export async function parkedRetryCommand(context: CommandContext, name: string, keyText: string | undefined): Promise<number> {
  const outcomes = await context.projection(name).retryParked(parseKey(keyText) as never);
  const failed = outcomes.filter((outcome) => outcome.status !== 'applied');
  context.out.data(outcomes, () => {
    for (const outcome of outcomes) {
      const key = JSON.stringify(outcome.key);
      if (outcome.status === 'applied') context.out.ok(`${key}: replayed, ${outcome.applied.length} events applied`);
      else context.out.warn(`${key}: failed again and stays parked${outcome.status === 'failed' ? ` (${errorText(outcome.error)})` : ''}`);
    }
    if (outcomes.length === 0) context.out.line(`${name}: no parked row to retry`);
  });
  return failed.length === 0 ? ExitCodes.ok : ExitCodes.failed;
}

/** `dynafold parked skip <projection> <key>`: moves a parked row past its failing event, on purpose. */
export async function parkedSkipCommand(context: CommandContext, name: string, keyText: string): Promise<number> {
  const outcome = await context.projection(name).skipParked(parseKey(keyText) as never);
  context.out.data(outcome ?? null, () => {
    if (outcome === undefined) context.out.line(`${keyText}: not parked`);
    else if (outcome.status === 'applied') context.out.ok(`${keyText}: failing event skipped, ${outcome.applied.length} events applied`);
    else context.out.warn(`${keyText}: still ${outcome.status}`);
  });
  return outcome === undefined || outcome.status === 'applied' ? ExitCodes.ok : ExitCodes.failed;
}

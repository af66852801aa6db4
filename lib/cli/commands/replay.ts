import { readFileSync } from 'node:fs';
import { ConfigurationError } from '../../errors';
import { replayFailure } from '../../feed';
import type { AnyProjection } from '../../projector';
import type { CommandContext } from '../context';
import { ExitCodes } from '../exit-codes';

/** The OnFailure messages in a file (or stdin, `-`): one message, an array of them, or an SQS event's Records. */
function messagesIn(file: string): unknown[] {
  const text = readFileSync(file === '-' ? 0 : file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigurationError(`${file === '-' ? 'stdin' : file} is not JSON: give the OnFailure message(s) a destination queue received.`);
  }
  if (Array.isArray(parsed)) return parsed;
  const records = (parsed as { Records?: unknown }).Records;
  return Array.isArray(records) ? records : [parsed];
}

/** `dynafold replay <file>`: processes Lambda OnFailure messages again with the config's projections. */
export async function replayCommand(context: CommandContext, file: string): Promise<number> {
  const projections = context.projections as Readonly<Record<string, AnyProjection>>;
  const results: Array<{ failed: string[] }> = [];
  for (const message of messagesIn(file)) {
    const result = await replayFailure(message, { streamsClient: context.streamsClient(), projections });
    results.push({ failed: result.response.batchItemFailures.map((failure) => failure.itemIdentifier) });
  }
  context.out.data(results, () => {
    for (const [index, result] of results.entries()) {
      if (result.failed.length === 0) context.out.ok(`message ${index + 1}: its batch was processed again`);
      else context.out.warn(`message ${index + 1}: ${result.failed.length} records failed again (first ${result.failed[0]})`);
    }
  });
  return results.every((result) => result.failed.length === 0) ? ExitCodes.ok : ExitCodes.failed;
}

import { ConfigurationError } from '../../errors';
import type { ForgetResult, SubjectKeys } from '../../erasure';
import { confirmed } from '../confirm';
import type { CommandContext } from '../context';
import { ExitCodes } from '../exit-codes';

/**
 * The key stores of every configured stream with personal data, one per key table (told apart by their
 * shape, not their class: the config may load its own copy of the library).
 */
export function keyStoresOf(context: CommandContext): SubjectKeys[] {
  const projections = Object.values(context.projections);
  const streams = [...Object.values(context.model.streams ?? {}), ...projections.flatMap((projection) => projection.streams)];
  const byTable = new Map<string, SubjectKeys>();
  for (const stream of streams) {
    const keys = stream.subjectKeys;
    if (keys !== undefined && typeof keys.forget === 'function' && !byTable.has(keys.table)) byTable.set(keys.table, keys);
  }
  return [...byTable.values()];
}

/**
 * `dynafold forget <subject>`: forgets a data subject in every key table the config's streams use, after a
 * confirmation (or `--yes`): its key is deleted and a marker stops a new one, so its personal data reads as
 * the declared replacements from then on, everywhere. Says when to rebuild the rows that hold it.
 */
export async function forgetCommand(context: CommandContext, subject: string, options: { yes?: boolean }): Promise<number> {
  const stores = keyStoresOf(context);
  if (stores.length === 0) {
    throw new ConfigurationError('No stream of the config declares `personalData`: there is no key table to forget a subject in.');
  }
  const tables = stores.map((store) => store.table).join(', ');
  const question = `Forget subject "${subject}" (key table ${tables})? Its personal data becomes unreadable for good; this can't be undone.`;
  if (!(await confirmed(`forget ${subject}`, question, options.yes))) {
    context.out.line('Nothing changed.');
    return ExitCodes.ok;
  }
  const results: ForgetResult[] = [];
  for (const store of stores) results.push(await store.forget(subject));
  const settledAt = results
    .map((result) => result.settledAt)
    .sort()
    .at(-1) as string;
  context.out.data({ subject, forgotten: results, settledAt }, () => {
    for (const result of results) {
      const what = result.alreadyForgotten
        ? `already forgotten at ${result.forgottenAt}`
        : result.keyDeleted
          ? 'key deleted'
          : 'no key held; none will be made';
      context.out.ok(`subject "${subject}" forgotten in ${result.table}: ${what}`);
    }
    const tables = new Set(results.map((result) => result.table));
    const holding = Object.entries(context.projections)
      .filter(([, projection]) => projection.streams.some((stream) => stream.subjectKeys !== undefined && tables.has(stream.subjectKeys.table)))
      .map(([name]) => name);
    const commands = (holding.length === 0 ? ['<projection>'] : holding).map((name) => `\`dynafold rebuild ${name} <stream id>\``).join(', ');
    context.out.note(
      `Rows and outbox messages folded before hold what they held: once every process's key cache has dropped the key (by ${settledAt}), ` +
        `rebuild the rows of the stream instances that hold its data (${commands}; without a stream id, every row).`,
    );
  });
  return ExitCodes.ok;
}

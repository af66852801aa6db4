import { createInterface } from 'node:readline/promises';
import { ConfigurationError } from '../../errors';
import { DynamoCheckpointStore } from '../../feed';
import type { CommandContext } from '../context';
import { ExitCodes } from '../exit-codes';
import { streamArnOf } from './feeds';

/** `dynafold checkpoints reset <feed>`: forgets a consumer's checkpoints, so it starts over at its starting position. */
export async function checkpointsResetCommand(context: CommandContext, name: string, options: { yes?: boolean }): Promise<number> {
  const feed = context.feed(name);
  const streamArn = await streamArnOf(context, feed.table);
  if (options.yes !== true) {
    if (process.stdin.isTTY !== true)
      throw new ConfigurationError(`checkpoints reset ${name} needs a confirmation: pass --yes when not at a terminal.`);
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await prompt.question(
      `Forget every checkpoint of consumer ${feed.consumer} on ${feed.table}'s stream? It will read the stream again. [y/N] `,
    );
    prompt.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      context.out.line('Nothing changed.');
      return ExitCodes.ok;
    }
  }
  await new DynamoCheckpointStore({ client: context.client, table: feed.checkpointTable }).clearCheckpoints({ consumer: feed.consumer, streamArn });
  context.out.data({ feed: name, consumer: feed.consumer, reset: true }, () => context.out.ok(`checkpoints of ${feed.consumer} reset`));
  return ExitCodes.ok;
}

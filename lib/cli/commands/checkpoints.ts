import { DynamoCheckpointStore } from '../../feed';
import { confirmed } from '../confirm';
import type { CommandContext } from '../context';
import { ExitCodes } from '../exit-codes';
import { streamArnOf } from './feeds';

/** `dynafold checkpoints reset <feed>`: forgets a consumer's checkpoints, so it starts over at its starting position. */
export async function checkpointsResetCommand(context: CommandContext, name: string, options: { yes?: boolean }): Promise<number> {
  const feed = context.feed(name);
  const streamArn = await streamArnOf(context, feed.table);
  const question = `Forget every checkpoint of consumer ${feed.consumer} on ${feed.table}'s stream? It will read the stream again.`;
  if (!(await confirmed(`checkpoints reset ${name}`, question, options.yes))) {
    context.out.line('Nothing changed.');
    return ExitCodes.ok;
  }
  await new DynamoCheckpointStore({ client: context.client, table: feed.checkpointTable }).clearCheckpoints({ consumer: feed.consumer, streamArn });
  context.out.data({ feed: name, consumer: feed.consumer, reset: true }, () => context.out.ok(`checkpoints of ${feed.consumer} reset`));
  return ExitCodes.ok;
}

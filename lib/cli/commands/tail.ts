import { ConfigurationError } from '../../errors';
import { ChangeFeedConsumer, MemoryCheckpointStore } from '../../feed';
import { decodeImages, decoder, type AnyEventStream } from '../../store';
import type { CommandContext } from '../context';
import { ExitCodes } from '../exit-codes';
import { onInterrupt } from '../interrupt';
import { colours } from '../output';
import { streamArnOf } from './feeds';

function streamNamed(context: CommandContext, name: string): AnyEventStream {
  const streams = Object.entries(context.model.streams ?? {});
  const found = streams.find(([key, stream]) => key === name || stream.name === name)?.[1];
  if (found === undefined)
    throw new ConfigurationError(`Unknown stream ${name}: the config has ${streams.map(([key]) => key).join(', ') || 'none'}.`);
  return found;
}

/**
 * `dynafold tail <stream>`: events as they are appended, one line each, read from the change feed with
 * checkpoints in memory and no lease, so no consumer's position moves. `--from-start` reads what the
 * stream holds first; `--limit` stops after that many events, and with `--from-start` also once the feed
 * has read everything the stream holds (a stream of fewer events would otherwise keep it waiting).
 */
export async function tailCommand(context: CommandContext, name: string, options: { fromStart?: boolean; limit?: number }): Promise<number> {
  const stream = streamNamed(context, name);
  const decode = decoder({ stream });
  const feed = new ChangeFeedConsumer({
    streamsClient: context.streamsClient(),
    streamArn: await streamArnOf(context, stream.table),
    consumer: 'dynafold-tail',
    checkpoints: new MemoryCheckpointStore(),
    lease: false,
    startingPosition: options.fromStart === true ? 'TRIM_HORIZON' : 'LATEST',
    pollIntervalMs: 250,
  });
  onInterrupt(() => void feed.stop());
  // The first n events the stream holds, as `head` would print them: no more to come once it is read through.
  if (options.fromStart === true && options.limit !== undefined)
    feed.whenCaughtUp().then(
      () => feed.stop(),
      // A feed that fails ends the loop below with its error; one stopped first needs nothing more.
      () => undefined,
    );
  // Without --from-start nothing shows until something is appended: say so, or it looks stuck.
  if (options.fromStart !== true)
    context.out.note('Waiting for events appended from now on (Ctrl-C stops); --from-start prints the ones the stream holds first.');
  let shown = 0;
  for await (const batch of feed) {
    const images = batch.records.map((record) => (record.eventName === 'INSERT' ? record.dynamodb?.NewImage : undefined));
    for (const outcome of await decodeImages(decode, images)) {
      if ('error' in outcome) throw outcome.error;
      // A record is an append's commit: its events, in order.
      for (const event of outcome.decoded?.events ?? []) {
        if (options.limit !== undefined && shown >= options.limit) break;
        if (context.out.json) process.stdout.write(`${JSON.stringify(event)}\n`);
        else
          process.stdout.write(
            `${colours.dim(event.timestamp)} ${colours.bold(`${event.streamName}#${event.streamId}`)} v${event.version} ${colours.cyan(event.type)} ${JSON.stringify(event.data)}\n`,
          );
        if (options.limit !== undefined && ++shown >= options.limit) void feed.stop();
      }
    }
    await batch.commit();
  }
  return ExitCodes.ok;
}

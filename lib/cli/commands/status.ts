import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand, type Shard } from '@aws-sdk/client-dynamodb-streams';
import { DynamoCheckpointStore, type ShardCheckpoint } from '../../feed';
import type { CommandContext } from '../context';
import { ExitCodes } from '../exit-codes';
import { colours } from '../output';
import { streamArnOf } from './feeds';
import { reactionsStatus, timersStatus } from './reactions-status';

/** How far a lag count reads before it says "at least". */
const LAG_PAGES = 5;

interface ShardStatus {
  readonly shardId: string;
  readonly state: 'open' | 'closed';
  readonly checkpoint: string;
  /** Records not yet checkpointed (a lower bound when `lagIsLowerBound`). */
  readonly lagRecords: number;
  readonly lagIsLowerBound: boolean;
  /** Age of the oldest record not yet checkpointed. */
  readonly lagMs: number | undefined;
}

interface FeedStatus {
  readonly name: string;
  readonly consumer: string;
  readonly streamArn: string;
  readonly lease: { readonly owner: string; readonly expiresAt: string; readonly live: boolean } | null;
  readonly shards: ReadonlyArray<ShardStatus>;
  readonly problem: string | undefined;
}

async function shardsOf(context: CommandContext, streamArn: string): Promise<Shard[]> {
  const shards: Shard[] = [];
  let start: string | undefined;
  do {
    const page = await context
      .streamsClient()
      .send(new DescribeStreamCommand({ StreamArn: streamArn, ...(start === undefined ? {} : { ExclusiveStartShardId: start }) }));
    shards.push(...(page.StreamDescription?.Shards ?? []));
    start = page.StreamDescription?.LastEvaluatedShardId;
  } while (start !== undefined);
  return shards;
}

/** Records after the checkpoint, read a few pages deep: their count and the oldest one's age. */
async function lagOf(context: CommandContext, streamArn: string, shard: Shard, checkpoint: ShardCheckpoint | undefined) {
  if (checkpoint?.kind === 'finished') return { lagRecords: 0, lagIsLowerBound: false, lagMs: undefined };
  const streams = context.streamsClient();
  let iterator = (
    await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shard.ShardId,
        ...(checkpoint?.kind === 'sequence'
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: checkpoint.sequenceNumber }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    )
  ).ShardIterator;
  let count = 0;
  let oldest: Date | undefined;
  for (let page = 0; page < LAG_PAGES && iterator !== undefined; page++) {
    const answer = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    const records = answer.Records ?? [];
    oldest ??= records[0]?.dynamodb?.ApproximateCreationDateTime;
    count += records.length;
    iterator = answer.NextShardIterator;
    if (records.length === 0)
      return { lagRecords: count, lagIsLowerBound: false, lagMs: oldest === undefined ? undefined : Date.now() - oldest.getTime() };
  }
  return { lagRecords: count, lagIsLowerBound: iterator !== undefined, lagMs: oldest === undefined ? undefined : Date.now() - oldest.getTime() };
}

async function feedStatus(context: CommandContext, name: string): Promise<FeedStatus> {
  const feed = context.feed(name);
  const streamArn = await streamArnOf(context, feed.table);
  const store = new DynamoCheckpointStore({ client: context.client, table: feed.checkpointTable });
  const key = { consumer: feed.consumer, streamArn };
  const [lease, checkpoints, shards] = await Promise.all([store.getLease(key), store.getCheckpoints(key), shardsOf(context, streamArn)]);
  const statuses: ShardStatus[] = [];
  for (const shard of shards) {
    const checkpoint = checkpoints.get(shard.ShardId as string);
    const lag = await lagOf(context, streamArn, shard, checkpoint);
    statuses.push({
      shardId: shard.ShardId as string,
      state: shard.SequenceNumberRange?.EndingSequenceNumber === undefined ? 'open' : 'closed',
      checkpoint: checkpoint === undefined ? 'none' : checkpoint.kind === 'finished' ? 'finished' : checkpoint.sequenceNumber,
      ...lag,
    });
  }
  const live = lease !== undefined && lease.expiresAt > Date.now();
  const behind = statuses.some((shard) => shard.lagRecords > 0);
  return {
    name,
    consumer: feed.consumer,
    streamArn,
    lease: lease === undefined ? null : { owner: lease.owner, expiresAt: new Date(lease.expiresAt).toISOString(), live },
    shards: statuses,
    problem: behind && !live ? 'Behind, and no consumer holds the lease.' : undefined,
  };
}

/**
 * `dynafold status`: every feed's lease, checkpoints and lag, every projection's parked rows, every reaction's
 * lag (its feeds'), every timers table's due and late timers; exit 3 when something fails.
 */
export async function statusCommand(context: CommandContext): Promise<number> {
  try {
    return await reportStatus(context);
  } catch (error) {
    // Tables missing on a local endpoint are most often another access key's database: say which key was used.
    if (isMissingTable(error)) {
      const credentials = await context.localCredentials();
      if (credentials !== undefined) context.out.note(credentials);
    }
    throw error;
  }
}

/** A missing table, as the SDK or dynafold's typed error says it. */
function isMissingTable(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause.name === 'ResourceNotFoundException' || (cause as { code?: unknown }).code === 'dynamo.tableNotFound') return true;
  }
  return false;
}

async function reportStatus(context: CommandContext): Promise<number> {
  const feeds: FeedStatus[] = [];
  for (const name of Object.keys(context.model.feeds ?? {})) feeds.push(await feedStatus(context, name));
  const projections: Array<{ name: string; parked: number }> = [];
  for (const name of Object.keys(context.projections)) {
    let parked = 0;
    for await (const _row of context.projection(name).parkedRows()) parked++;
    projections.push({ name, parked });
  }
  const reactions = reactionsStatus(
    context,
    feeds.map((feed) => ({ ...feed, table: context.feed(feed.name).table })),
  );
  const timers = await timersStatus(context);
  const healthy =
    feeds.every((feed) => feed.problem === undefined) &&
    projections.every((projection) => projection.parked === 0) &&
    timers.every((table) => table.late === 0);
  context.out.data({ healthy, feeds, projections, reactions, timers }, () => {
    for (const feed of feeds) {
      const lease =
        feed.lease === null
          ? 'no lease'
          : `lease ${feed.lease.owner} ${feed.lease.live ? `until ${feed.lease.expiresAt}` : `lapsed ${feed.lease.expiresAt}`}`;
      // The lease and the problem are two sentences: "no lease. Behind, and no consumer holds the lease."
      context.out.line(
        `${colours.bold(`feed ${feed.name}`)} (consumer ${feed.consumer}): ${lease}${feed.problem === undefined ? '' : `. ${colours.red(feed.problem)}`}`,
      );
      context.out.table(
        ['shard', 'state', 'checkpoint', 'lag (records)', 'lag (age)'],
        feed.shards.map((shard) => [
          shard.shardId,
          shard.state,
          shard.checkpoint,
          `${shard.lagIsLowerBound ? '≥ ' : ''}${shard.lagRecords}`,
          shard.lagMs === undefined ? '-' : `${Math.round(shard.lagMs / 1000)} s`,
        ]),
      );
    }
    if (projections.length > 0)
      context.out.table(
        ['projection', 'parked rows'],
        projections.map((projection) => [projection.name, projection.parked]),
      );
    if (reactions.length > 0)
      context.out.table(
        ['reaction', 'lag (records)', 'lag (age)', 'feeds'],
        reactions.map((reaction) => [
          reaction.name,
          reaction.lagRecords === undefined ? '-' : `${reaction.lagIsLowerBound ? '≥ ' : ''}${reaction.lagRecords}`,
          reaction.lagMs === undefined ? '-' : `${Math.round(reaction.lagMs / 1000)} s`,
          reaction.feeds.join(', ') || 'none in the config',
        ]),
      );
    if (timers.length > 0)
      context.out.table(
        ['timers', 'due', 'late', 'longest due'],
        timers.map((table) => [
          table.table,
          `${table.atLeast ? '≥ ' : ''}${table.due}`,
          `${table.atLeast ? '≥ ' : ''}${table.late}`,
          table.oldestDueMs === undefined ? '-' : `${Math.round(table.oldestDueMs / 1000)} s`,
        ]),
      );
    context.out.line(healthy ? colours.green('healthy') : colours.red('failing'));
  });
  return healthy ? ExitCodes.ok : ExitCodes.unhealthy;
}

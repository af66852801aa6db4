import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb-streams';
import { SimShard, type HashRange } from './shard';

/** The whole space of partition-key hashes: 32 bits. */
const HASH_SPACE = 2 ** 32;

/** How a shard is closed to make room for what follows it. */
export type Reshard = 'rollover' | 'split';

/** Hashes a partition key the same way every time, so one partition always lands in one shard. */
export function partitionHash(value: AttributeValue | undefined): number {
  return createHash('md5')
    .update(JSON.stringify(value ?? null))
    .digest()
    .readUInt32BE(0);
}

/**
 * The shards of the stream and their lineage. The open shards' hash ranges cover the whole space without
 * overlap, so every partition key has exactly one open shard. A rollover closes a shard and opens one
 * child with its range; a split opens two children with a half each. Shard ids carry a counter (so they
 * sort by creation, which DescribeStream's paging relies on) and a few seeded hex digits (so the same
 * seed and the same records give the same ids, in any process).
 */
export class Topology {
  /** The shards in the stream, in creation order. */
  readonly shards: SimShard[] = [];
  /** Every shard ever opened, including those that left the stream. */
  readonly history: SimShard[] = [];
  private counter = 0;

  constructor(
    private readonly random: () => number,
    private readonly listingLag: () => number,
  ) {}

  /** Opens `count` shards dividing the hash space evenly, all starting at `starting`. */
  open(count: number, starting: bigint, at: number): void {
    for (let i = 0; i < count; i++) {
      const range = { low: Math.floor((HASH_SPACE * i) / count), high: Math.floor((HASH_SPACE * (i + 1)) / count) };
      this.add(undefined, starting, range, at, at);
    }
  }

  /** The open shard that receives a partition key's hash. */
  route(hash: number): SimShard {
    const shard = this.shards.find((s) => !s.closed && s.range.low <= hash && hash < s.range.high);
    if (shard === undefined) throw new Error(`No open shard covers hash ${hash}`);
    return shard;
  }

  /** Closes `shard` after its last record and opens its child (rollover) or children (split). */
  reshard(shard: SimShard, how: Reshard, at: number): SimShard[] {
    if (shard.closed) throw new Error(`Shard ${shard.shardId} is closed already`);
    shard.close(at);
    // Children start after everything the parent holds: sequence numbers grow along the lineage.
    const starting = (shard.ending ?? shard.starting) + 1n;
    const { low, high } = shard.range;
    const halves: HashRange[] =
      how === 'split' && high - low > 1
        ? [
            { low, high: low + Math.floor((high - low) / 2) },
            { low: low + Math.floor((high - low) / 2), high },
          ]
        : [{ low, high }];
    return halves.map((range) => this.add(shard.shardId, starting, range, at, at + this.listingLag()));
  }

  /** Closes every open shard (the table's stream was disabled). */
  closeAll(at: number): void {
    for (const shard of this.shards) if (!shard.closed) shard.close(at);
  }

  openCount(): number {
    return this.shards.filter((shard) => !shard.closed).length;
  }

  find(shardId: string): SimShard | undefined {
    return this.shards.find((shard) => shard.shardId === shardId);
  }

  /** Removes the shards that have left the stream. */
  removeExpired(cutoff: number): void {
    for (let i = this.shards.length - 1; i >= 0; i--) if (this.shards[i]?.expired(cutoff)) this.shards.splice(i, 1);
  }

  private add(parent: string | undefined, starting: bigint, range: HashRange, at: number, listedFrom: number): SimShard {
    const suffix = Math.floor(this.random() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
    const shardId = `shardId-${String(++this.counter).padStart(20, '0')}-${suffix}`;
    const shard = new SimShard(shardId, parent, starting, range, at, listedFrom);
    this.shards.push(shard);
    this.history.push(shard);
    return shard;
  }
}

import type {
  AttributeValue,
  DescribeStreamCommandInput,
  DescribeStreamCommandOutput,
  GetRecordsCommandInput,
  GetRecordsCommandOutput,
  GetShardIteratorCommandInput,
  GetShardIteratorCommandOutput,
  Shard,
  StreamDescription,
  _Record,
} from '@aws-sdk/client-dynamodb-streams';
import { seededRandom } from '../random';
import { SimClock } from './clock';
import { SimErrors } from './errors';
import { IteratorRegistry, type IteratorState } from './iterators';
import { SimulationDefaults, SimulationLimits, type SimulationFaults, type SimulationOptions } from './options';
import { formatSequence, type SimShard } from './shard';
import { LocalStreamSource } from './source';
import { SimulationStats } from './stats';
import { Topology, partitionHash, type Reshard } from './topology';

type Output<T> = Omit<T, '$metadata'>;

/**
 * A DynamoDB Streams endpoint in process, shaped like AWS, fed by the real records of a table's stream on
 * DynamoDB Local. Records are spread over shards by partition key; shards roll over and split at seeded
 * random records; records older than the retention are trimmed; iterators expire; DescribeStream pages and
 * lists new shards late; fresh iterators answer empty pages; requests are throttled or fail. What each of
 * these does, and the documentation behind it, is in BEHAVIOURS.md next to this file.
 * Plug it into a real client with `simulateStreams(client, simulation)`.
 */
export class SimulatedStream {
  readonly clock: SimClock;
  readonly stats = new SimulationStats();
  private readonly topology: Topology;
  private readonly iterators: IteratorRegistry;
  private readonly reshardRandom: () => number;
  private readonly faultRandom: () => number;
  private readonly faults: SimulationFaults;
  private readonly placement = new Map<string, string>();
  private disabled = false;
  private syncing: Promise<void> | undefined;
  private syncedAt = Number.NEGATIVE_INFINITY;

  private constructor(
    private readonly options: SimulationOptions,
    private readonly source: LocalStreamSource,
    private readonly description: StreamDescription,
    private readonly hashKey: string,
  ) {
    this.clock = options.clock ?? new SimClock();
    this.reshardRandom = seededRandom(options.seed);
    this.faultRandom = seededRandom(options.seed ^ 0x5bd1e995);
    const lagRandom = seededRandom(options.seed ^ 0x1b873593);
    this.faults = { ...SimulationDefaults.faults, ...options.faults };
    this.topology = new Topology(this.reshardRandom, () => Math.floor(lagRandom() * this.faults.maxListingLagMs));
    this.iterators = new IteratorRegistry(options.iteratorLifetimeMs ?? SimulationDefaults.iteratorLifetimeMs);
  }

  /** Builds the simulation of `options.streamArn`, with its first shards open. */
  static async create(options: SimulationOptions): Promise<SimulatedStream> {
    const source = new LocalStreamSource(options.source, options.streamArn);
    const description = await source.describe();
    const hashKey = description.KeySchema?.find((key) => key.KeyType === 'HASH')?.AttributeName;
    const starting = description.Shards?.[0]?.SequenceNumberRange?.StartingSequenceNumber;
    if (hashKey === undefined || starting === undefined) throw new Error(`The stream ${options.streamArn} has no key schema or shard`);
    const simulation = new SimulatedStream(options, source, description, hashKey);
    simulation.topology.open(options.shards ?? SimulationDefaults.shards, BigInt(starting), simulation.clock.now());
    return simulation;
  }

  get streamArn(): string {
    return this.options.streamArn;
  }

  /** Answers a Streams API command by name, as the service would; undefined for one it does not simulate. */
  async handle(command: string, input: unknown): Promise<object | undefined> {
    switch (command) {
      case 'DescribeStreamCommand':
        return this.request(() => this.describeStream(input as DescribeStreamCommandInput));
      case 'GetShardIteratorCommand':
        return this.request(() => this.getShardIterator(input as GetShardIteratorCommandInput));
      case 'GetRecordsCommand':
        return this.request(() => this.getRecords(input as GetRecordsCommandInput));
      default:
        return undefined;
    }
  }

  /** Takes in what was written to DynamoDB Local since the last request, reshards, and trims; concurrent callers share one. */
  sync(): Promise<void> {
    this.syncing ??= this.ingest().finally(() => {
      this.syncing = undefined;
      this.syncedAt = Date.now();
    });
    return this.syncing;
  }

  /** A sync unless one ended less than `propagationMs` ago: records reach the stream with a short delay, as on AWS. */
  private syncIfDue(): Promise<void> {
    const propagationMs = this.options.propagationMs ?? SimulationDefaults.propagationMs;
    return Date.now() - this.syncedAt < propagationMs ? Promise.resolve() : this.sync();
  }

  private async ingest(): Promise<void> {
    const { records, ended } = await this.source.pull();
    for (const record of records) this.receive(record);
    if (ended && !this.disabled) {
      this.disabled = true;
      this.topology.closeAll(this.clock.now());
    }
    this.trim();
  }

  /** Closes an open shard now, after its last record, into one child (rollover) or two (split). */
  reshard(shardId: string, how: Reshard): string[] {
    const shard = this.topology.find(shardId);
    if (shard === undefined || shard.closed) throw new Error(`Shard ${shardId} is not open`);
    // A shard closes after its last record: children then start after every sequence number seen so far.
    if (shard.newest === undefined) throw new Error(`Shard ${shardId} holds no record yet: write one before closing it`);
    return this.closeInto(shard, how).map((child) => child.shardId);
  }

  /** Every shard ever opened, in creation order, with its lineage and state. */
  lineage(): Array<{ shardId: string; parentShardId: string | undefined; closed: boolean; inStream: boolean; records: number; listedFrom: number }> {
    return this.topology.history.map((shard) => ({
      shardId: shard.shardId,
      parentShardId: shard.parentShardId,
      closed: shard.closed,
      inStream: this.topology.find(shard.shardId) !== undefined,
      records: shard.records.length,
      listedFrom: shard.listedFrom,
    }));
  }

  /** The shard a record was placed in, by sequence number. */
  shardOf(sequenceNumber: string): string | undefined {
    return this.placement.get(sequenceNumber);
  }

  /** The open shard that receives a partition key's records. */
  openShardFor(partitionKey: AttributeValue): string {
    return this.topology.route(partitionHash(partitionKey)).shardId;
  }

  private async request<T>(answer: () => T): Promise<T> {
    // Faults come first: a throttled or failed request has no effect.
    const draw = this.faultRandom();
    if (draw < this.faults.throttleChance) {
      this.stats.count('throttled');
      throw SimErrors.throttled();
    }
    if (draw < this.faults.throttleChance + this.faults.failureChance) {
      this.stats.count('failed');
      throw SimErrors.internal();
    }
    await this.syncIfDue();
    try {
      return answer();
    } catch (error) {
      if (error instanceof Error) this.stats.count(error.name);
      throw error;
    }
  }

  private receive(record: _Record): void {
    const sequenceNumber = record.dynamodb?.SequenceNumber;
    if (sequenceNumber === undefined) throw new Error('DynamoDB Local gave a record without a sequence number');
    const shard = this.topology.route(partitionHash(record.dynamodb?.Keys?.[this.hashKey]));
    const now = this.clock.now();
    shard.append({ record, sequence: BigInt(sequenceNumber), arrivedAt: now });
    this.placement.set(sequenceNumber, shard.shardId);
    const draw = this.reshardRandom();
    const split = this.options.splitChance ?? SimulationDefaults.splitChance;
    const rollover = this.options.rolloverChance ?? SimulationDefaults.rolloverChance;
    if (draw < split) this.closeInto(shard, 'split');
    else if (draw < split + rollover) this.closeInto(shard, 'rollover');
  }

  private closeInto(shard: SimShard, how: Reshard): SimShard[] {
    const maxOpen = this.options.maxOpenShards ?? SimulationDefaults.maxOpenShards;
    const actual = how === 'split' && this.topology.openCount() >= maxOpen ? 'rollover' : how;
    this.stats.count(actual);
    return this.topology.reshard(shard, actual, this.clock.now());
  }

  private trim(): void {
    const now = this.clock.now();
    const cutoff = now - (this.options.retentionMs ?? SimulationDefaults.retentionMs);
    for (const shard of this.topology.shards) shard.trim(cutoff);
    this.topology.removeExpired(cutoff);
    this.iterators.sweep(now);
  }

  private describeStream(input: DescribeStreamCommandInput): Output<DescribeStreamCommandOutput> {
    if (input.StreamArn !== this.streamArn) throw SimErrors.streamNotFound(String(input.StreamArn));
    const limit = input.Limit ?? SimulationLimits.maxShardsPerDescribe;
    if (!Number.isInteger(limit) || limit < 1 || limit > SimulationLimits.maxShardsPerDescribe) {
      throw SimErrors.validation(`1 validation error detected: Value '${limit}' at 'limit' failed to satisfy constraint`);
    }
    const now = this.clock.now();
    let listed = this.topology.shards.filter((shard) => shard.listedFrom <= now);
    if (input.ShardFilter !== undefined) {
      if (input.ShardFilter.Type !== 'CHILD_SHARDS' || input.ShardFilter.ShardId === undefined) {
        throw SimErrors.validation('ShardFilter needs Type CHILD_SHARDS and a ShardId');
      }
      const parent = input.ShardFilter.ShardId;
      listed = listed.filter((shard) => shard.parentShardId === parent);
    }
    const start = input.ExclusiveStartShardId;
    // Shard ids sort by creation, so a page starts after the given id even if that shard has left the stream.
    if (start !== undefined) listed = listed.filter((shard) => shard.shardId > start);
    const size = Math.min(limit, this.options.describePageSize ?? SimulationDefaults.describePageSize);
    const page = listed.slice(0, size);
    const more = listed.length > size;
    return {
      StreamDescription: {
        ...this.description,
        StreamStatus: this.disabled ? 'DISABLED' : 'ENABLED',
        Shards: page.map(toShard),
        LastEvaluatedShardId: more ? page.at(-1)?.shardId : undefined,
      },
    };
  }

  private getShardIterator(input: GetShardIteratorCommandInput): Output<GetShardIteratorCommandOutput> {
    if (input.StreamArn !== this.streamArn) throw SimErrors.streamNotFound(String(input.StreamArn));
    const shard = this.topology.find(String(input.ShardId));
    if (shard === undefined) throw SimErrors.shardNotFound();
    const after = this.positionOf(shard, input);
    if (shard.trimmedThrough !== undefined && after < shard.trimmedThrough) {
      throw SimErrors.trimmed(`sequence number ${input.SequenceNumber} is older than the trim point of shard ${shard.shardId}`);
    }
    const emptyPagesLeft = Math.floor(this.faultRandom() * (this.faults.maxEmptyPages + 1));
    return { ShardIterator: this.iterators.issue({ shardId: shard.shardId, after, issuedAt: this.clock.now(), emptyPagesLeft }) };
  }

  /** The position right before the first record an iterator of this type reads. */
  private positionOf(shard: SimShard, input: GetShardIteratorCommandInput): bigint {
    switch (input.ShardIteratorType) {
      case 'TRIM_HORIZON':
        return shard.horizon();
      case 'LATEST':
        return shard.ending ?? shard.newest ?? shard.horizon();
      case 'AT_SEQUENCE_NUMBER':
      case 'AFTER_SEQUENCE_NUMBER': {
        const sequence = parseSequence(input.SequenceNumber);
        const last = shard.ending;
        if (sequence === undefined || sequence < shard.starting || (last !== undefined && sequence > last)) {
          throw SimErrors.validation('Invalid SequenceNumber for the shard');
        }
        return input.ShardIteratorType === 'AT_SEQUENCE_NUMBER' ? sequence - 1n : sequence;
      }
      default:
        throw SimErrors.validation(`Invalid ShardIteratorType ${String(input.ShardIteratorType)}`);
    }
  }

  private getRecords(input: GetRecordsCommandInput): Output<GetRecordsCommandOutput> {
    const limit = input.Limit ?? SimulationLimits.maxRecordsPerPage;
    if (!Number.isInteger(limit) || limit < 1 || limit > SimulationLimits.maxRecordsPerPage) {
      throw SimErrors.validation(`1 validation error detected: Value '${limit}' at 'limit' failed to satisfy constraint`);
    }
    const now = this.clock.now();
    const state = this.iterators.lookup(String(input.ShardIterator), now);
    if (state === undefined) throw SimErrors.validation('Invalid ShardIterator');
    if (state === 'expired') throw SimErrors.expired();
    const shard = this.topology.find(state.shardId);
    if (shard === undefined) throw SimErrors.trimmed(`shard ${state.shardId} has left the stream`);
    if (shard.trimmedThrough !== undefined && state.after < shard.trimmedThrough) {
      throw SimErrors.trimmed(`records of shard ${shard.shardId} after ${formatSequence(state.after)} were trimmed`);
    }
    if (shard.drainedAfter(state.after)) return { Records: [] };
    if (state.emptyPagesLeft > 0) {
      this.stats.count('emptyPage');
      return { Records: [], NextShardIterator: this.next(state, state.after, state.emptyPagesLeft - 1) };
    }
    const records = shard.after(state.after, limit);
    const after = records.at(-1)?.sequence ?? state.after;
    // The page that reaches the end of a closed shard carries no next iterator, as on DynamoDB Local.
    const next = shard.drainedAfter(after) ? undefined : this.next(state, after, 0);
    return { Records: records.map((record) => record.record), NextShardIterator: next };
  }

  private next(state: IteratorState, after: bigint, emptyPagesLeft: number): string {
    return this.iterators.issue({ shardId: state.shardId, after, issuedAt: this.clock.now(), emptyPagesLeft });
  }
}

function toShard(shard: SimShard): Shard {
  return {
    ShardId: shard.shardId,
    ParentShardId: shard.parentShardId,
    SequenceNumberRange: {
      StartingSequenceNumber: formatSequence(shard.starting),
      EndingSequenceNumber: shard.ending === undefined ? undefined : formatSequence(shard.ending),
    },
  };
}

function parseSequence(value: string | undefined): bigint | undefined {
  return value !== undefined && /^\d{1,40}$/.test(value) ? BigInt(value) : undefined;
}

import type { _Record } from '@aws-sdk/client-dynamodb-streams';

/** A record as the simulation keeps it: DynamoDB Local's record, its sequence number, when it arrived. */
export interface SimRecord {
  readonly record: _Record;
  readonly sequence: bigint;
  readonly arrivedAt: number;
}

/** The half-open range of partition-key hashes a shard receives. */
export interface HashRange {
  readonly low: number;
  readonly high: number;
}

/** Sequence numbers as DynamoDB Local writes them: 21 zero-padded decimal digits. */
export function formatSequence(sequence: bigint): string {
  return sequence.toString().padStart(21, '0');
}

/**
 * One shard: the records it still retains, in order; where trimming has reached; and, once closed, its
 * last sequence number. A shard only ever receives records newer than all it holds.
 */
export class SimShard {
  readonly records: SimRecord[] = [];
  /** The newest sequence number trimmed away; records at or before it are gone. */
  trimmedThrough: bigint | undefined;
  ending: bigint | undefined;
  closedAt: number | undefined;
  /** The newest sequence number the shard ever received (trimmed or not). */
  newest: bigint | undefined;

  constructor(
    readonly shardId: string,
    readonly parentShardId: string | undefined,
    readonly starting: bigint,
    readonly range: HashRange,
    readonly createdAt: number,
    /** DescribeStream lists the shard from this time on (it is eventually consistent). */
    readonly listedFrom: number,
  ) {}

  get closed(): boolean {
    return this.ending !== undefined;
  }

  append(record: SimRecord): void {
    if (this.closed) throw new Error(`Shard ${this.shardId} is closed and received a record`);
    this.records.push(record);
    this.newest = record.sequence;
  }

  /** Closes the shard after its last record (or at its start when it holds none). */
  close(at: number): void {
    this.ending = this.newest ?? this.starting;
    this.closedAt = at;
  }

  /** Drops the records that arrived at or before `cutoff`. */
  trim(cutoff: number): void {
    let drop = 0;
    while (drop < this.records.length && (this.records[drop]?.arrivedAt ?? Infinity) <= cutoff) drop++;
    if (drop === 0) return;
    this.trimmedThrough = this.records[drop - 1]?.sequence;
    this.records.splice(0, drop);
  }

  /** Whether the shard has left the stream: closed, emptied by trimming, and closed for longer than the retention. */
  expired(cutoff: number): boolean {
    return this.closedAt !== undefined && this.closedAt <= cutoff && this.records.length === 0;
  }

  /** The position right before the oldest record still held (where TRIM_HORIZON starts). */
  horizon(): bigint {
    return this.trimmedThrough ?? this.starting - 1n;
  }

  /** The records after `after`, at most `limit`. */
  after(after: bigint, limit: number): SimRecord[] {
    const from = this.records.findIndex((record) => record.sequence > after);
    return from === -1 ? [] : this.records.slice(from, from + limit);
  }

  /** Whether a reader positioned after `after` has read everything this shard will ever hold: it is closed, with nothing after. */
  drainedAfter(after: bigint): boolean {
    return this.closed && (this.newest === undefined || after >= this.newest);
  }
}

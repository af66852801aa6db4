import { ConfigurationError, MessageTooLargeError } from '../../errors';
import { requireTableName } from '../../util';
import { outboxContext, sealBlob, trailOf } from '../../personal';
import type { StreamEvent } from '../../store';
import type { ReadModel } from '../../read-model';
import { compress, TransactionLimits, itemSize } from '../../dynamo';
import { traceContextBytes } from '../../telemetry';
import type { ExtraPut, MessageBatch, RowMessages } from '../engine';
import { OutboxLayout } from './outbox-layout';

/** Options of a projection's outbox: messages written in the same transaction as the row. */
export interface OutboxOptions<State, Event> {
  /** The outbox table (see {@link outboxTableDefinition}); not the read model's own table. */
  readonly table: string;
  /**
   * The message for an applied event, or `undefined` for none; `state` is the row right after that
   * event (`undefined` once the event removed it). @defaultValue the event itself
   */
  readonly message?:
    ((event: Event, context: { readonly key: Readonly<Record<string, unknown>>; readonly state: State | undefined }) => unknown) | undefined;
}

const REVISION_DIGITS = 12;
/** Messages whose JSON is larger than this are stored gzip-compressed, as event data is. */
const COMPRESS_ABOVE_BYTES = 4096;

/** Limits of one row write's messages: the row takes one item of the transaction and up to 400 KB of it. */
const MESSAGES_PER_WRITE = TransactionLimits.items - 1;
const MESSAGE_BYTES_PER_WRITE = TransactionLimits.transactionBytes - TransactionLimits.itemBytes;

/**
 * Builds the outbox Puts of a projection's row writes. Messages of a row share a partition and sort by
 * the row's revision and their place in the write, so the relay publishes them in the order they were
 * applied.
 */
export class OutboxWriter implements RowMessages {
  constructor(
    readonly projection: string,
    private readonly readModel: ReadModel,
    private readonly options: OutboxOptions<unknown, StreamEvent>,
  ) {
    requireTableName('outbox.table', options.table, `Projection ${projection}`);
    if (options.table === readModel.table) {
      throw new ConfigurationError(
        `Projection ${projection}: the outbox can't share the read model's table ${options.table}; give it a table of its own (see outboxTableDefinition).`,
      );
    }
  }

  /** The partition holding one row's messages: the projection and the row's key values, unambiguously joined. */
  partition(key: Readonly<Record<string, unknown>>): string {
    return JSON.stringify([this.projection, ...Object.values(this.readModel.keyOf(key))]);
  }

  /** The messages of one row write at `revision`, collected while the row is folded. */
  batch(key: Readonly<Record<string, unknown>>, revision: number): OutboxBatch {
    return new OutboxBatch(this, key, revision);
  }

  /** The Put of the message for `event`, or `undefined` when the projection writes none for it. */
  put(key: Readonly<Record<string, unknown>>, event: StreamEvent, state: unknown, sortKey: string): ExtraPut | undefined {
    const message = this.options.message === undefined ? event : this.options.message(event, { key, state });
    if (message === undefined) return undefined;
    return outboxPut({
      table: this.options.table,
      writer: this.projection,
      partition: this.partition(key),
      sortKey,
      id: `${event.streamName}#${event.streamId}#${event.version}`,
      key,
      message,
      event,
    });
  }
}

/** What an outbox message's item holds (see {@link outboxPut}). */
export interface OutboxEntry {
  readonly table: string;
  /** Who wrote it (a projection's name, a reaction's): the relay keys on it. */
  readonly writer: string;
  /** The partition holding the messages published in order with it. */
  readonly partition: string;
  /** Its place among them. */
  readonly sortKey: string;
  /** Its stable id, to deduplicate on. */
  readonly id: string;
  readonly key: Readonly<Record<string, unknown>>;
  readonly message: unknown;
  /** The event it comes from, whose trace context it carries and whose personal data's subjects it is sealed for. */
  readonly event?: StreamEvent | undefined;
}

/**
 * The Put of an outbox message, as the relay (`dynafold/outbox`) reads it: compressed when large, sealed
 * for the subjects of its event's personal data, with its event's trace context. A projection's outbox and
 * a reaction's messages share it.
 */
export function outboxPut(entry: OutboxEntry): ExtraPut {
  const { event, partition, sortKey } = entry;
  const json = JSON.stringify(entry.message);
  const compressed = Buffer.byteLength(json) > COMPRESS_ABOVE_BYTES;
  const stored = compressed ? compress(json, 'gzip') : (JSON.parse(json) as unknown);
  // The message of an event that holds personal data is sealed for its subjects: once one is forgotten,
  // the relay can't open it and deletes it unpublished.
  const trail = event === undefined ? undefined : trailOf(event);
  const sealed =
    trail === undefined
      ? undefined
      : sealBlob(trail, compressed ? (stored as Uint8Array) : Buffer.from(json, 'utf8'), outboxContext(partition, sortKey));
  const trace = event?.trace === undefined ? undefined : traceContextBytes(event.trace);
  return {
    table: entry.table,
    item: {
      [OutboxLayout.partitionKey]: partition,
      [OutboxLayout.sortKey]: sortKey,
      [OutboxLayout.marker]: entry.writer,
      id: entry.id,
      key: entry.key,
      message: sealed === undefined ? stored : sealed.body,
      ...(compressed ? { [OutboxLayout.encoding]: 'gzip' } : {}),
      ...(sealed === undefined ? {} : { [OutboxLayout.personal]: sealed.shares }),
      ...(trace === undefined ? {} : { [OutboxLayout.traceContext]: trace }),
      createdAt: new Date().toISOString(),
    },
  };
}

/**
 * The messages of one row write, added as the fold applies events. It refuses an event whose message
 * would take the write past a transaction's limits (100 items, 4 MB), so the fold stops before it and
 * the rest goes into the next write.
 */
export class OutboxBatch implements MessageBatch {
  readonly puts: ExtraPut[] = [];
  private bytes = 0;

  constructor(
    private readonly writer: OutboxWriter,
    private readonly key: Readonly<Record<string, unknown>>,
    private readonly revision: number,
  ) {}

  /** Adds the message of `event` (with the row's state right after it); `false` when it must wait for the next write. */
  accept(event: StreamEvent, state: unknown): boolean {
    const sortKey = `${String(this.revision).padStart(REVISION_DIGITS, '0')}#${String(this.puts.length).padStart(3, '0')}`;
    const put = this.writer.put(this.key, event, state, sortKey);
    if (put === undefined) return true;
    const size = itemSize(put.item);
    if (size > TransactionLimits.itemBytes) {
      throw new MessageTooLargeError(this.writer.projection, event, size);
    }
    if (this.puts.length >= MESSAGES_PER_WRITE || this.bytes + size > MESSAGE_BYTES_PER_WRITE) return false;
    this.puts.push(put);
    this.bytes += size;
    return true;
  }
}

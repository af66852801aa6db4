import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { ConfigurationError, MessageTooLargeError } from '../../errors';
import { requireTableName } from '../../util';
import { openBlob, outboxContext, sealBlob, trailOf, type StreamEvent, type SubjectKeys } from '../../store';
import { type ReadModel } from '../../read-model';
import { compress, decompress, TransactionLimits, itemSize, keyedTableDefinition } from '../../dynamo';
import { storedTraceContext, traceContextBytes, type TraceContext } from '../../telemetry';

/** A Put to send in the same transaction as the row (an outbox message). */
export interface ExtraPut {
  readonly table: string;
  readonly item: Record<string, unknown>;
}

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

/** An outbox message as the relay hands it to `publish`. */
export interface OutboxMessage {
  /**
   * `<stream name>#<stream id>#<version>` of the event: stable across redeliveries and unique within a
   * projection (two projections with outboxes each publish their own message for an event). Deduplicate on
   * it together with `projection`.
   */
  readonly id: string;
  readonly projection: string;
  /** The key fields of the row whose write produced the message. */
  readonly key: Readonly<Record<string, unknown>>;
  readonly message: unknown;
  readonly createdAt: string;
  /**
   * The trace context the event's append stored, when it did: to propagate with the message (the relay's
   * publish span links to it too).
   */
  readonly trace?: TraceContext | undefined;
}

/** Outbox items' attributes. */
export const OutboxLayout = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** On outbox items: the projection's name. The relay keys on it. */
  marker: '_dfOutbox',
  /** On a message stored compressed: its algorithm. */
  encoding: 'enc',
  /** On a message sealed for the subjects whose personal data its event holds: each one's share of its key (see `Layout.personal`). */
  personal: 'pd',
  /** On a message whose event carried a trace context: that context (see `StreamEvent.trace`). */
  traceContext: 'tc',
} as const;

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
export class OutboxWriter {
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
    const json = JSON.stringify(message);
    const compressed = Buffer.byteLength(json) > COMPRESS_ABOVE_BYTES;
    const partition = this.partition(key);
    const stored = compressed ? compress(json, 'gzip') : (JSON.parse(json) as unknown);
    // The message of an event that holds personal data is sealed for its subjects: once one is forgotten,
    // the relay can't open it and deletes it unpublished.
    const trail = trailOf(event);
    const sealed =
      trail === undefined
        ? undefined
        : sealBlob(trail, compressed ? (stored as Uint8Array) : Buffer.from(json, 'utf8'), outboxContext(partition, sortKey));
    const trace = event.trace === undefined ? undefined : traceContextBytes(event.trace);
    return {
      table: this.options.table,
      item: {
        [OutboxLayout.partitionKey]: partition,
        [OutboxLayout.sortKey]: sortKey,
        [OutboxLayout.marker]: this.projection,
        id: `${event.streamName}#${event.streamId}#${event.version}`,
        key,
        message: sealed === undefined ? stored : sealed.body,
        ...(compressed ? { [OutboxLayout.encoding]: 'gzip' } : {}),
        ...(sealed === undefined ? {} : { [OutboxLayout.personal]: sealed.shares }),
        ...(trace === undefined ? {} : { [OutboxLayout.traceContext]: trace }),
        createdAt: new Date().toISOString(),
      },
    };
  }
}

/**
 * The messages of one row write, added as the fold applies events. It refuses an event whose message
 * would take the write past a transaction's limits (100 items, 4 MB), so the fold stops before it and
 * the rest goes into the next write.
 */
export class OutboxBatch {
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

/** The trace context a stored outbox item carries, if any. */
export function storedMessageTrace(item: Readonly<Record<string, unknown>>): TraceContext | undefined {
  return storedTraceContext(item[OutboxLayout.traceContext]);
}

/**
 * The message of a stored outbox item, decompressed where it was stored compressed and opened where it was
 * sealed (with `keys`, which must hold the keys of its subjects: see {@link sealedSubjects}); `erased` when
 * a subject it was sealed for is forgotten.
 */
export function storedMessage(item: Readonly<Record<string, unknown>>, keys?: SubjectKeys): { readonly message: unknown } | 'erased' {
  const encoding = item[OutboxLayout.encoding];
  let message = item['message'];
  const shares = item[OutboxLayout.personal];
  if (shares !== undefined) {
    const where = `Outbox message ${String(item['id'])} of projection ${String(item[OutboxLayout.marker])}`;
    if (keys === undefined)
      throw new ConfigurationError(`${where} is sealed for the subjects whose personal data it holds: give the relay \`keys\`.`);
    const context = outboxContext(String(item[OutboxLayout.partitionKey]), String(item[OutboxLayout.sortKey]));
    const opened = openBlob(keys, message, shares, context, where);
    if (opened.kind === 'forgotten') return 'erased';
    message = typeof encoding === 'string' ? opened.plaintext : (JSON.parse(opened.plaintext.toString('utf8')) as unknown);
  }
  if (typeof encoding !== 'string') return { message };
  const bytes = typeof message === 'string' ? Buffer.from(message, 'base64') : (message as Uint8Array);
  return { message: JSON.parse(decompress(bytes, encoding)) as unknown };
}

/** The subjects a page of outbox items is sealed for, whose keys opening them needs. */
export function sealedSubjects(items: ReadonlyArray<Readonly<Record<string, unknown>>>): Set<string> {
  const subjects = new Set<string>();
  for (const item of items) {
    const shares = item[OutboxLayout.personal];
    if (typeof shares === 'object' && shares !== null) for (const subject of Object.keys(shares)) subjects.add(subject);
  }
  return subjects;
}

/**
 * The CreateTable input of an outbox table: `pk` + `sk` strings, on-demand, with a NEW_IMAGE stream the
 * relay can run on (from Lambda or the change feed).
 */
export function outboxTableDefinition(tableName: string): CreateTableCommandInput {
  return keyedTableDefinition(tableName, 'NEW_IMAGE');
}

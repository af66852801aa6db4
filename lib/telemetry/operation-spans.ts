import { Attr, DB_SYSTEM, MessagingSystem } from './names';
import type { SpanAttributes, SpanSpec } from './spans';

/** What a span needs of a stream: its name and table. */
interface StreamLike {
  readonly name: string;
  readonly table: string;
}

/**
 * The attributes of a database span on `tables`, per the conventions for database client spans: the
 * operation, its target (the table, or several), and `db.query.summary`, the span's name (`append Order`).
 */
function database(operation: string, tables: ReadonlyArray<string>, summary: string, more: SpanAttributes = {}): SpanAttributes {
  return {
    [Attr.dbSystem]: DB_SYSTEM,
    [Attr.dbOperation]: operation,
    [Attr.dbCollection]: tables.length === 1 ? tables[0] : undefined,
    [Attr.tableNames]: [...new Set(tables)],
    [Attr.dbSummary]: summary,
    ...more,
  };
}

/**
 * An operation of an event stream: `append` and `load` are database client spans on the events table,
 * named after the operation and the stream (the table is in their attributes); `execute` (a command: its
 * load, decide and append, retried) is internal, its load and append its children.
 */
export function streamSpan(operation: 'append' | 'load' | 'execute', stream: StreamLike, more: SpanAttributes = {}): SpanSpec {
  const name = `${operation} ${stream.name}`;
  return {
    name,
    kind: operation === 'execute' ? 'internal' : 'client',
    attributes: database(operation, [stream.table], name, { [Attr.streamName]: stream.name, ...more }),
  };
}

/** Where a batch's records come from, and so its process span's `messaging.system`. */
export type Transport = 'lambda' | 'kinesis' | 'pipe' | 'feed' | 'records';

/**
 * A batch of stream records processed into projections: a messaging consumer span (`process`), the
 * destination being the events tables the records were read from, the change feed's shard its partition.
 */
export function processSpan(transport: Transport, tables: ReadonlyArray<string>, records: number, more: SpanAttributes = {}): SpanSpec {
  const destination = [...new Set(tables)].sort().join(',');
  return {
    name: destination === '' ? 'process' : `process ${destination}`,
    kind: 'consumer',
    attributes: {
      [Attr.messagingSystem]: transport === 'kinesis' ? MessagingSystem.kinesis : MessagingSystem.dynamodbStreams,
      [Attr.messagingOperation]: 'process',
      [Attr.messagingOperationType]: 'process',
      [Attr.messagingDestination]: destination === '' ? undefined : destination,
      [Attr.messagingBatchCount]: records,
      [Attr.transport]: transport,
      ...more,
    },
  };
}

/** One row of a projection brought forward: a database span on the read model's table, `writeRow <projection>`. */
export function rowSpan(projection: string, table: string, key: Readonly<Record<string, unknown>>): SpanSpec {
  const name = `writeRow ${projection}`;
  return { name, kind: 'client', attributes: database('writeRow', [table], name, { [Attr.projection]: projection, [Attr.rowKey]: keyText(key) }) };
}

/**
 * An operation of a projection over its rows (`rebuild`, `replay`, `backfill`): internal, its row writes
 * its children (but a backfill's: `bulk`).
 */
export function projectionSpan(operation: 'rebuild' | 'replay' | 'backfill', projection: string, more: SpanAttributes = {}, bulk = false): SpanSpec {
  return {
    name: `${operation} ${projection}`,
    kind: 'internal',
    attributes: { [Attr.projection]: projection, [Attr.dbOperation]: operation, ...more },
    ...(bulk ? { role: 'bulk' as const } : {}),
  };
}

/**
 * The publishing of one outbox message by the relay: a messaging producer span (`send`), linked to the
 * event the message is for.
 */
export function publishSpan(outboxTable: string, projection: string, messageId: string): SpanSpec {
  return {
    name: `send ${projection}`,
    kind: 'producer',
    attributes: {
      [Attr.messagingOperation]: 'send',
      [Attr.messagingOperationType]: 'send',
      [Attr.messagingDestination]: projection,
      [Attr.messagingMessageId]: messageId,
      [Attr.projection]: projection,
      [Attr.outboxTable]: outboxTable,
    },
  };
}

/** A row's key as one attribute: its fields as JSON, in the order the key gives them. */
export function keyText(key: Readonly<Record<string, unknown>>): string {
  try {
    return JSON.stringify(key);
  } catch {
    // A key of values JSON can't write (a bigint): its field names still say which row it is.
    return Object.keys(key).join(',');
  }
}

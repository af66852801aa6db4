import type { TableDescription } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { itemSize } from '../../lib/dynamo';

/** An item as the SDK carries it: attribute values (`{ S: 'x' }`) or, through a document client, plain values. */
export type Item = Readonly<Record<string, unknown>>;

/** A global secondary index: its key and which attributes it projects. */
export interface IndexSchema {
  readonly name: string;
  readonly key: ReadonlyArray<string>;
  readonly projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  readonly include: ReadonlyArray<string>;
}

/** What billing needs of a table: its primary key and its global secondary indexes. */
export interface TableSchema {
  readonly key: ReadonlyArray<string>;
  readonly indexes: ReadonlyArray<IndexSchema>;
}

/** An item's entry in an index, if the item has the index's key attributes (indexes are sparse). */
export interface IndexEntry {
  readonly key: string;
  readonly content: string;
  readonly bytes: number;
}

/** What the book knows of a stored item: its size and its entries in the table's indexes. */
export interface StoredItem {
  readonly bytes: number;
  readonly indexed: ReadonlyMap<string, IndexEntry>;
}

const TAGS = new Set(['S', 'N', 'B', 'SS', 'NS', 'BS', 'M', 'L', 'NULL', 'BOOL']);

/**
 * The item in plain values. An item always holds its key attributes, which are strings, numbers or binaries:
 * plain values at the top level mean a document client's item, attribute values (one tag each) the wire's.
 */
export function plain(item: Item): Item {
  const values = Object.values(item);
  const marshalled =
    values.length > 0 &&
    values.every(
      (v) => typeof v === 'object' && v !== null && !(v instanceof Uint8Array) && Object.keys(v).length === 1 && TAGS.has(Object.keys(v)[0] ?? ''),
    );
  return marshalled ? unmarshall(item as Parameters<typeof unmarshall>[0]) : item;
}

/** An item's size by DynamoDB's rule (attribute names plus values), through the store's own estimate. */
export const sizeOf = (item: Item): number => itemSize(plain(item));

/** A stable text of values, so equal keys and equal projections compare equal. */
function text(values: Item): string {
  return JSON.stringify(values, (_, v: unknown) =>
    v instanceof Set ? [...(v as Set<unknown>)].sort() : v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
  );
}

const pick = (item: Item, names: Iterable<string>): Item =>
  Object.fromEntries([...names].filter((n) => item[n] !== undefined).map((n) => [n, item[n]]));

export function schemaOf(table: Pick<TableDescription, 'KeySchema' | 'GlobalSecondaryIndexes'>): TableSchema {
  return {
    key: (table.KeySchema ?? []).map((k) => k.AttributeName ?? ''),
    indexes: (table.GlobalSecondaryIndexes ?? []).map((index) => ({
      name: index.IndexName ?? '',
      key: (index.KeySchema ?? []).map((k) => k.AttributeName ?? ''),
      projection: index.Projection?.ProjectionType ?? 'ALL',
      include: index.Projection?.NonKeyAttributes ?? [],
    })),
  };
}

/**
 * Table schemas and the size of every item the bench has seen written or read, by table and key: what
 * AWS bills for an UpdateItem (the item before it), a failed condition or a ConditionCheck (the item that is
 * there), and the index entries a write replaces. Items written before the book was opened are unknown and
 * count as absent.
 */
export class ItemBook {
  private readonly schemas = new Map<string, TableSchema>();
  private readonly items = new Map<string, Map<string, StoredItem>>();

  describe(table: string, schema: TableSchema): void {
    this.schemas.set(table, schema);
  }

  schema(table: string): TableSchema | undefined {
    return this.schemas.get(table);
  }

  /** The key of an item (or of a `Key`) in `table`, as text; `undefined` for a table the book does not know. */
  keyOf(table: string, item: Item): string | undefined {
    const schema = this.schemas.get(table);
    return schema === undefined ? undefined : text(pick(plain(item), schema.key));
  }

  stored(table: string, item: Item): StoredItem | undefined {
    const key = this.keyOf(table, item);
    return key === undefined ? undefined : this.items.get(table)?.get(key);
  }

  /** The entry `item` (plain values) would have in each index of `table` it belongs to. */
  entries(table: string, item: Item | undefined): Map<string, IndexEntry> {
    const entries = new Map<string, IndexEntry>();
    const schema = this.schemas.get(table);
    if (item === undefined || schema === undefined) return entries;
    const values = plain(item);
    for (const index of schema.indexes) {
      if (index.key.some((name) => values[name] === undefined)) continue;
      const projected = index.projection === 'ALL' ? values : pick(values, new Set([...schema.key, ...index.key, ...index.include]));
      entries.set(index.name, { key: text(pick(values, index.key)), content: text(projected), bytes: itemSize(projected) });
    }
    return entries;
  }

  remember(table: string, item: Item): void {
    const key = this.keyOf(table, item);
    if (key === undefined) return;
    let stored = this.items.get(table);
    if (stored === undefined) this.items.set(table, (stored = new Map()));
    stored.set(key, { bytes: sizeOf(item), indexed: this.entries(table, item) });
  }

  forget(table: string, key: Item): void {
    const text = this.keyOf(table, key);
    if (text !== undefined) this.items.get(table)?.delete(text);
  }
}

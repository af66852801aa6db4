import type { IndexDefinition, PrimaryKeyDefinition } from './read-model-keys';

/**
 * Type-level only: the key arguments of a read model, derived from the composites of its key and indexes.
 * A `ReadModel` captures its composites as literal tuples (its type parameters are `const`), so a field
 * name that is not a composite is a compile error. Composites the compiler can't see literally (a key
 * definition built elsewhere and typed `string[]`) fall back to a plain record, checked at run time.
 */

/** A plain record of key fields: what a key argument is when the composites are not known literally. */
export type AnyKeyValues = Readonly<Record<string, unknown>>;

/** The composite field names of a key definition; `never` for none (an absent sort key). */
type FieldsOf<K> = K extends { readonly composite: ReadonlyArray<infer F extends string> } ? F : never;

/** The composite tuple of an optional key definition; empty for an absent one. */
type CompositeOf<K> = K extends { readonly composite: infer C extends ReadonlyArray<string> } ? C : readonly [];

/** Whether some composite is only known as `string` (not a literal tuple). */
type IsWide<Fields extends string> = string extends Fields ? true : false;

/** Flattens intersections, so compiler messages show one object type. */
type Simplify<T> = T extends unknown ? { [K in keyof T]: T[K] } : never;

/** The values of these fields as the row holds them, every one required. */
export type FieldValues<Row, Fields extends string> = { readonly [F in Fields]-?: F extends keyof Row ? Exclude<Row[F], undefined> : never };

/**
 * A leading part of a sort key's composites: none, the first, the first two… all. The fields after the
 * part given are typed `never`, so skipping one is a compile error (a query narrows by a prefix only).
 */
type LeadingPart<Row, Composite extends ReadonlyArray<string>> = Composite extends readonly [
  ...infer Init extends ReadonlyArray<string>,
  infer Last extends string,
]
  ? FieldValues<Row, Composite[number]> | (LeadingPart<Row, Init> & { readonly [F in Last]?: never })
  : unknown;

/** The sort key definition of a key or index, if it has one. */
type SortKeyOf<K> = K extends { readonly sk?: infer S | undefined } ? S : undefined;

/** The fields naming one row: every composite of the primary key's partition and sort keys. */
export type KeyValues<Row, Key extends PrimaryKeyDefinition> =
  IsWide<FieldsOf<Key['pk']> | FieldsOf<SortKeyOf<Key>>> extends true
    ? AnyKeyValues
    : Simplify<FieldValues<Row, FieldsOf<Key['pk']> | FieldsOf<SortKeyOf<Key>>>>;

/** What a query of an index (or of the primary key) selects by: every partition key composite, and a leading part of the sort key's. */
export type QueryValues<Row, Index extends PrimaryKeyDefinition> =
  IsWide<FieldsOf<Index['pk']> | FieldsOf<SortKeyOf<Index>>> extends true
    ? AnyKeyValues
    : Simplify<FieldValues<Row, FieldsOf<Index['pk']>> & LeadingPart<Row, CompositeOf<SortKeyOf<Index>>>>;

/** The names `query` takes: the model's indexes and `'primary'`. */
export type IndexName<Indexes> = (keyof Indexes & string) | 'primary';

/** The key definition a query by `Name` uses. */
export type IndexByName<Indexes, Key extends PrimaryKeyDefinition, Name> = Name extends 'primary'
  ? Key
  : Name extends keyof Indexes
    ? Indexes[Name] extends IndexDefinition
      ? Indexes[Name]
      : PrimaryKeyDefinition
    : PrimaryKeyDefinition;

// Read models, a room of their own below the projector and beside the event store: the query-shaped row type
// (read-model), its keys and indexes (read-model-keys) and their types (read-model-key-types), the table that
// holds them (table-definition), and the attributes a projection keeps on a row beside its fields (RowAttributes).
export { ReadModel } from './read-model';
export type { KeyOfModel, Page, ReadModelOptions, ReadOptions, Stored } from './read-model';
export type { AnyKeyValues, IndexName, KeyValues, QueryValues } from './read-model-key-types';
export { RowAttributes } from './read-model-keys';
export type { IndexDefinition, KeyDefinition, PrimaryKeyDefinition } from './read-model-keys';
export { readModelTableDefinition } from './table-definition';

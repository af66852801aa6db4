// Read models: the query-shaped row type (read-model), its keys and indexes (read-model-keys) and their types
// (read-model-key-types).
export { ReadModel } from './read-model';
export type { KeyOfModel, Page, ReadModelOptions, ReadOptions, Stored } from './read-model';
export type { AnyKeyValues, IndexName, KeyValues, QueryValues } from './read-model-key-types';
export { RowAttributes } from './read-model-keys';
export type { IndexDefinition, KeyDefinition, PrimaryKeyDefinition } from './read-model-keys';

import { type z } from 'zod';
import { ConfigurationError, ValidationError } from '../errors';
import { joinComposite } from '../store';
import { assertKeyLength } from '../dynamo';

/** A key attribute computed from row fields: `<model name>#<values joined with #>`. */
export interface KeyDefinition {
  readonly field: string;
  readonly composite: ReadonlyArray<string>;
}

/** A global secondary index: its DynamoDB name and key attributes. */
export interface IndexDefinition {
  readonly name: string;
  readonly pk: KeyDefinition;
  readonly sk?: KeyDefinition | undefined;
}

/** The primary key of a read model's rows. */
export interface PrimaryKeyDefinition {
  readonly pk: KeyDefinition;
  readonly sk?: KeyDefinition | undefined;
}

/** Attributes dynafold keeps on every row besides the schema's fields. */
export const RowAttributes = {
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  model: '_rm',
  /** Marks a tombstone: a removed row that keeps its checkpoint. */
  deleted: '_deleted',
  /** Incremented on every projection write that keeps a revision. */
  revision: '_rev',
  /** A multi-source row's checkpoint per source stream instance. */
  sources: '_sources',
  /** The one stream instance feeding a single-source row. */
  source: '_src',
  /**
   * Marks a stub: a row item without fields, holding a projection's bookkeeping for a row that does not
   * exist yet (failed attempts, a parked row, a checkpoint past a skipped event). Reads never show it.
   */
  stub: '_stub',
  /** A row's failed attempts at its next events, counted towards parking. */
  failures: '_failures',
  /** A parked row: the event that kept failing and how far later events reached. */
  parked: '_parked',
  /** Events skipped on purpose past a parked row (`skipParked`). */
  skippedEvents: '_skippedEvents',
  /**
   * Marks a row whose writer is in the middle of a fold that takes several writes (an outbox's messages
   * past one transaction): another write of it is coming. Other writers watch the row instead of racing.
   */
  more: '_more',
  /**
   * The ids of the row's last writes, newest last (see `RowWrites`): a write whose answer was lost and
   * that the SDK sent again knows, by its id here, that the row it meets is its own.
   */
  writes: '_w',
} as const;

/** A key attribute's value; the model name first, so several models can share a table and its indexes. */
export function keyValue(
  model: string,
  key: KeyDefinition,
  values: Readonly<Record<string, unknown>>,
  kind: 'partition' | 'sort' = 'partition',
): string {
  if (key.composite.length === 0) return model;
  const value = `${model}#${joinComposite(`Key ${key.field} of ${model}`, key.composite, values)}`;
  assertKeyLength(`Key ${key.field} of ${model}`, value, kind);
  return value;
}

/**
 * What selects rows by a leading part of `key`'s composites: the whole key value when every composite is
 * given (`exact`), else the prefix of the values given, ending with the separator.
 */
export function keyPrefix(
  model: string,
  key: KeyDefinition,
  values: Readonly<Record<string, unknown>>,
): { readonly value: string; readonly exact: boolean } | undefined {
  const given = key.composite.filter((field) => values[field] !== undefined);
  const leading = key.composite.slice(0, given.length);
  if (given.length === 0) return undefined;
  if (given.some((field, index) => field !== leading[index])) {
    throw new ValidationError(`Key ${key.field} of ${model}: give a leading part of (${key.composite.join(', ')}), not ${given.join(', ')}.`, [
      { path: [key.field], message: 'not a leading part of the key' },
    ]);
  }
  const joined = `${model}#${joinComposite(`Key ${key.field} of ${model}`, leading, values)}`;
  return given.length === key.composite.length ? { value: joined, exact: true } : { value: `${joined}#`, exact: false };
}

/** Checks key and index definitions against the schema at construction. */
export function validateKeys(
  model: string,
  schema: z.ZodObject,
  key: PrimaryKeyDefinition,
  indexes: Readonly<Record<string, IndexDefinition>>,
): void {
  const fields = new Set(Object.keys(schema.shape));
  const attributes = new Set<string>();
  const check = (where: string, definition: KeyDefinition | undefined) => {
    if (definition === undefined) return;
    if (typeof definition.field !== 'string' || definition.field === '') throw new ConfigurationError(`${model}: ${where} needs a \`field\` name.`);
    if (fields.has(definition.field) || Object.values(RowAttributes).includes(definition.field as never)) {
      throw new ConfigurationError(
        `${model}: key attribute \`${definition.field}\` (${where}) collides with a row field; name it apart (e.g. pk, gsi1pk).`,
      );
    }
    for (const field of definition.composite) {
      if (!fields.has(field)) throw new ConfigurationError(`${model}: ${where} composite \`${field}\` is not a field of the schema.`);
    }
    attributes.add(definition.field);
  };
  check('key.pk', key.pk);
  check('key.sk', key.sk);
  for (const [name, index] of Object.entries(indexes)) {
    if (typeof index.name !== 'string' || index.name.length < 3)
      throw new ConfigurationError(`${model}: index ${name} needs a DynamoDB index \`name\` of at least 3 characters.`);
    check(`indexes.${name}.pk`, index.pk);
    check(`indexes.${name}.sk`, index.sk);
  }
  for (const reserved of Object.values(RowAttributes)) {
    if (fields.has(reserved)) throw new ConfigurationError(`${model}: \`${reserved}\` is kept by dynafold; remove it from the schema.`);
  }
}

import { z } from 'zod';
import { ConfigurationError } from '../errors';

/** Where a row keeps its checkpoint: a numeric field storing `version + offset`. */
export interface CheckpointField {
  readonly field: string;
  readonly offset: number;
  /** Rows written before the projection may lack the field: then every event applies. */
  readonly optional: boolean;
}

/** Resolves the `checkpoint` option and checks the field is a number in the row schema. */
export function resolveCheckpoint(
  option: string | { readonly field: string; readonly offset?: number | undefined },
  schema: z.ZodObject,
  where: string,
): CheckpointField {
  const { field, offset = 0 } = typeof option === 'string' ? { field: option } : option;
  if (typeof field !== 'string' || field === '')
    throw new ConfigurationError(`${where}: expected \`checkpoint\` to name a numeric field of the row.`);
  if (!Number.isInteger(offset)) throw new ConfigurationError(`${where}: expected \`checkpoint.offset\` to be an integer.`);
  const fieldSchema = schema.shape[field] as z.ZodType | undefined;
  if (fieldSchema === undefined) throw new ConfigurationError(`${where}: the checkpoint field \`${field}\` is not in the read model's schema.`);
  const { inner, optional } = unwrap(fieldSchema);
  if (!(inner instanceof z.ZodNumber)) {
    throw new ConfigurationError(`${where}: the checkpoint field \`${field}\` must be a number in the read model's schema.`);
  }
  return { field, offset, optional };
}

function unwrap(schema: z.ZodType): { inner: z.ZodType; optional: boolean } {
  let inner = schema;
  let optional = false;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault) {
    if (!(inner instanceof z.ZodDefault)) optional = true;
    inner = inner.unwrap() as z.ZodType;
  }
  return { inner, optional };
}

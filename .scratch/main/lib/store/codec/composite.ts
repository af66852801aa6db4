import { ValidationError } from '../../errors';
import { ILL_FORMED, isWellFormed } from '../../util';

/** Separator of composite values in stream ids and row keys. */
export const COMPOSITE_SEPARATOR = '#';

/** A value a composite field may hold. */
export type CompositeValue = string | number;

/**
 * Joins the values of `fields` with `#`. With more than one field, a value containing `#` would make two
 * different ids collide (`a#b` + `c` vs `a` + `b#c`), so it is refused; so is a value with a lone surrogate,
 * which DynamoDB stores as U+FFFD (`'\uD800'` and `'\uDBFF'` would be one id).
 */
export function joinComposite(what: string, fields: ReadonlyArray<string>, values: Readonly<Record<string, unknown>>): string {
  return fields
    .map((field) => {
      const value = values[field];
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
      if (typeof value !== 'string' || value === '') {
        throw new ValidationError(`${what}: field \`${field}\` must be a non-empty string or a finite number, got ${describe(value)}.`, [
          { path: [field], message: 'required composite value' },
        ]);
      }
      if (!isWellFormed(value)) {
        throw new ValidationError(`${what}: field \`${field}\` ${ILL_FORMED}.`, [{ path: [field], message: 'ill-formed UTF-16' }]);
      }
      if (fields.length > 1 && value.includes(COMPOSITE_SEPARATOR)) {
        throw new ValidationError(
          `${what}: field \`${field}\` is "${value}", which contains "#": with several composite fields ` +
            `(${fields.join(', ')}) that is ambiguous. Use values without "#".`,
          [{ path: [field], message: 'contains "#"' }],
        );
      }
      return value;
    })
    .join(COMPOSITE_SEPARATOR);
}

/** Splits a joined composite back into its fields; the inverse of {@link joinComposite}. */
export function splitComposite(what: string, fields: ReadonlyArray<string>, joined: string): Record<string, string> {
  const parts = fields.length === 1 ? [joined] : joined.split(COMPOSITE_SEPARATOR);
  if (parts.length !== fields.length || parts.some((part) => part === '')) {
    throw new ValidationError(`${what}: "${joined}" does not have the ${fields.length} "#"-separated parts of (${fields.join(', ')}).`, [
      { path: [], message: 'ambiguous or malformed composite' },
    ]);
  }
  return Object.fromEntries(fields.map((field, index) => [field, parts[index] as string]));
}

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : value === '' ? 'an empty string' : typeof value;
}

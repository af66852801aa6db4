import type { z } from 'zod';
import type { SubjectKeys } from './subject-keys';

/** The fields of `Data` that hold strings: a subject id is one. */
type StringFieldOf<Data> = { [K in keyof Data & string]-?: NonNullable<Data[K]> extends string ? K : never }[keyof Data & string];

/**
 * Whose personal data an event's fields are: a subject id read from a field of the event's data (an
 * order's customer) or from a field of its stream id (an account's owner). Subject ids are stored in the
 * clear, so make them opaque ids, never the person's email or name.
 */
export type SubjectSource<Data, IdField extends string> = { readonly data: StringFieldOf<Data> } | { readonly streamId: IdField };

/**
 * One subject's personal fields of an event type: each field (of the type's data, at the top level) with
 * the value it reads as once the subject is forgotten, a value the field's schema accepts (`'[erased]'`,
 * `null` for a nullable field, `0`), at every version of the type that has the field unless `older`
 * declares that version's own. A field holding an object is sealed whole.
 *
 * @example
 * ```ts
 * { subject: { data: 'customerId' },
 *   fields: { email: '[erased]', address: null } }
 * ```
 */
export interface PersonalFields<Data, IdField extends string> {
  readonly subject: SubjectSource<Data, IdField>;
  readonly fields: { readonly [K in keyof Data]?: Data[K] };
}

/** The personal fields of an event type: one subject's, or several subjects' for an event about several people. */
export type PersonalDeclaration<Data, IdField extends string> = PersonalFields<Data, IdField> | ReadonlyArray<PersonalFields<Data, IdField>>;

/**
 * The `personalData` option of an event stream: the key store, and per event type which fields are
 * personal and whose they are. Appends seal those fields with the subject's key before anything is
 * written; every reader opens them, or reads the declared replacements once the subject is forgotten.
 */
export interface PersonalDataOptions<Events extends Readonly<Record<string, z.ZodType>>, IdField extends string> {
  /** The subjects' keys (one store per key table in a process: it holds the cache). */
  readonly keys: SubjectKeys;
  /** Today's version of each event type that holds personal data. A type or field the stream lacks is a `ConfigurationError`. */
  readonly events: { readonly [K in keyof Events & string]?: PersonalDeclaration<z.output<Events[K]>, IdField> };
  /**
   * Older versions of a type (see `versions`) whose stored events hold sealed fields of other names, or
   * whose schema refuses a replacement of today's: per type, per version, what their fields read as once
   * the subject is forgotten (the event is then upcast like any other). A field a version does not list
   * reads as today's replacement, which that version's schema must accept: one it refuses is a
   * `ConfigurationError` at construction naming the version to declare here.
   * @defaultValue none
   */
  readonly older?:
    { readonly [K in keyof Events & string]?: Readonly<Record<number, PersonalDeclaration<Record<string, unknown>, IdField>>> } | undefined;
}

import type { SubjectKeys } from './subject-keys';
import type { Trail } from './trail';

/** Where an event's subject id is read from, resolved. */
export type ResolvedSubject = { readonly data: string } | { readonly streamId: string };

/** One subject's personal fields of an event type, resolved: each field with the value it reads as once the subject is forgotten. */
export interface ResolvedGroup {
  readonly subject: ResolvedSubject;
  readonly fields: ReadonlyMap<string, unknown>;
}

/**
 * A stream's personal data, as its codec sees it: the key store, what each event type seals at today's
 * version, and what a sealed field of a stored version reads as once its subject is forgotten.
 */
export interface PersonalCodec {
  readonly keys: SubjectKeys;
  readonly streamIdFields: ReadonlyArray<string>;
  /** The groups of personal fields an event of `type` (today's name) seals when appended; none for a type without personal data. */
  groupsOf(type: string): ReadonlyArray<ResolvedGroup>;
  /** What `field` of an event of `type` stored at `version` reads as once its subject is forgotten; `undefined` when it was not declared. */
  replacementOf(type: string, version: number, field: string): { readonly value: unknown } | undefined;
}

/** What sealing made of an event's personal fields (see `sealEvents`). */
export interface SealedPersonal {
  /** The item's `pd` attribute: per subject, per field, the sealed value. */
  readonly attribute: Readonly<Record<string, Readonly<Record<string, Uint8Array>>>>;
  /** The event's whole data as a read returns it (JSON-normalised), for the append's result. */
  readonly data: unknown;
  /**
   * The data with each personal field as a keyed hash under its subject's key, for an idempotency key's
   * request hash (worked out when asked: only appends with an idempotency key need it).
   */
  identity(): unknown;
  /** The subjects sealed for, with their keys. */
  readonly trail: Trail;
}

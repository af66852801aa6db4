import type { SnapshotPlace } from './personal-codec';
import { SealFormat } from './cipher';

/*
 * What each sealed value is bound to (AES-GCM's additional data): a value sealed for one place does not
 * open in another, so no ciphertext can be copied between fields, events, snapshots or messages unnoticed.
 */

/** Where an event field is sealed: its stream instance, the type it is stored under, its event's version, its subject and its name. */
export interface FieldPlace {
  readonly partitionKey: string;
  readonly storedType: string;
  readonly version: number;
  readonly subject: string;
  readonly field: string;
}

/** The format appends seal event fields in: bound to their event's version too. */
export const FIELD_FORMAT = SealFormat.versioned;

/** The context an append seals an event field for: its place with its event's version, as JSON (no stream id or subject can make two places read alike). */
export function fieldContext(place: FieldPlace): string {
  const { partitionKey, storedType, version, subject, field } = place;
  return JSON.stringify(['dynafold:event', FIELD_FORMAT, partitionKey, storedType, version, subject, field]);
}

/**
 * The context of an event field sealed in `format`: the current one's (see {@link fieldContext}), or, for a
 * value sealed in the first format, its place without the version (so such a value opens in any event of
 * its instance, type, subject and field). `undefined` for a format no append writes.
 */
export function storedFieldContext(format: number, place: FieldPlace): string | undefined {
  if (format === FIELD_FORMAT) return fieldContext(place);
  if (format === SealFormat.first) return ['dynafold:event', place.partitionKey, place.storedType, place.subject, place.field].join('\n');
  return undefined;
}

/** The format snapshots are sealed in: bound to the versions saved beside the state too. */
export const SNAPSHOT_FORMAT = SealFormat.versioned;

/** The context a snapshot is sealed for: its place with its versions, as JSON. */
export function snapshotContext(place: SnapshotPlace): string {
  return JSON.stringify(['dynafold:snapshot', SNAPSHOT_FORMAT, place.partitionKey, place.name, place.version, place.stateVersion]);
}

/**
 * The context of a snapshot sealed in `format`: the current one's (see {@link snapshotContext}), or, for one
 * sealed in the first format, its stream instance and name only (its state opens whatever versions are
 * saved beside it). `undefined` for a format no save writes.
 */
export function storedSnapshotContext(format: number, place: SnapshotPlace): string | undefined {
  if (format === SNAPSHOT_FORMAT) return snapshotContext(place);
  if (format === SealFormat.first) return ['dynafold:snapshot', place.partitionKey, place.name].join('\n');
  return undefined;
}

/** A sealed outbox message: its row's partition and its place in it. */
export function outboxContext(partition: string, sortKey: string): string {
  return ['dynafold:outbox', partition, sortKey].join('\n');
}

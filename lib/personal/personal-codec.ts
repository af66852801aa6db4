import type { z } from 'zod';
import type { Trail } from './trail';

/*
 * The store seals, opens and loads keys only through these hooks, which a stream's `personalData.keys` (a
 * `SubjectKeys` of `dynafold/erasure`) makes from the stream's declaration: the key store, the declaration's
 * checks and the cipher are that module's, so an app that declares no personal data bundles none of them.
 */

/** What the hooks are told of a stream, to check its declaration against: its events' schemas and their versions' (see `versions`). */
export interface DeclaringStream {
  readonly name: string;
  readonly streamIdFields: ReadonlyArray<string>;
  readonly events: Readonly<Record<string, z.ZodType>>;
  /** Today's version of a type, its older versions' schemas, and whether it is retired. */
  readonly types: ReadonlyMap<
    string,
    {
      readonly type: string;
      readonly version: number;
      readonly older: ReadonlyMap<number, { readonly schema: z.ZodType }>;
      readonly retired?: unknown;
    }
  >;
}

/** Loads subjects' keys: a reader loads those of what it read before decoding it (see `SubjectKeys.load`). */
export interface KeyLoader {
  load(subjects: Iterable<string>, options?: { readonly signal?: AbortSignal | undefined }): Promise<void>;
}

/** What a stream's `personalData.keys` is to the store: the key loader that makes the stream's hooks. */
export interface PersonalDataKeys extends KeyLoader {
  /** The hooks of a stream's `personalData`, checked against the stream (a `ConfigurationError` names what to fix). */
  personalCodec(stream: DeclaringStream, option: object): PersonalCodec;
}

/** An event of an append, as sealing sees it: its type, its data as it is stored (JSON-normalised) and its place in the append. */
export interface EventToSeal {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly index: number;
}

/** Where an append goes: its stream, its partition key and its id's fields (for subjects read from the stream id). */
export interface SealingTarget {
  readonly streamName: string;
  readonly partitionKey: string;
  readonly ids: () => Readonly<Record<string, string>>;
}

/** What sealing made of an event's personal fields. */
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

/** An event sealed for the version it is written at: its data without the sealed fields (`rest`, what `data` stores) and what was sealed. */
export interface SealedEvent {
  readonly rest: Readonly<Record<string, unknown>>;
  readonly personal: SealedPersonal;
}

/** Seals the event at `index` of an append for `version`; `undefined` for one with nothing to seal. */
export type SealEvent = (index: number, version: number) => SealedEvent | undefined;

/** A stored event whose sealed fields are opened: where it is and what its type reads as. */
export interface SealedEventRef {
  /** For messages ("Event item <pk> <sk> of stream Order…"). */
  readonly where: string;
  readonly streamName: string;
  readonly streamId: string;
  readonly version: number;
  readonly partitionKey: string;
  /** The type the event is stored under (an alias, for a renamed type). */
  readonly storedType: string;
  /** The type it reads as today, its stored version and today's. */
  readonly type: string;
  readonly storedVersion: number;
  readonly todaysVersion: number;
}

/** An event's data with its sealed fields put back, and the subjects opened. */
export interface OpenedData {
  readonly data: unknown;
  readonly trail: Trail | undefined;
}

/** Where a snapshot is sealed: its stream instance and name, the stream version its state stands at and the version of the state's shape. */
export interface SnapshotPlace {
  readonly partitionKey: string;
  readonly name: string;
  readonly version: number;
  readonly stateVersion: number;
}

/** A snapshot's state sealed for the subjects whose personal data it holds: its body, and each subject's share of its key. */
export interface SealedState {
  readonly body: Uint8Array;
  readonly shares: Readonly<Record<string, Uint8Array>>;
}

/** A sealed snapshot's state opened, or why it can't be: a subject of it was forgotten. */
export type OpenedState =
  { readonly kind: 'open'; readonly plaintext: Buffer; readonly trail: Trail } | { readonly kind: 'forgotten'; readonly subject: string };

/**
 * A stream's personal data, as its codec sees it: the key loader, and the hooks that seal what an append
 * writes and open what a read decodes. Opening is synchronous: readers load the keys of what they read first.
 */
export interface PersonalCodec {
  readonly keys: KeyLoader;
  /**
   * Readies an append's events for sealing: their subjects' keys read, or made for subjects that have none,
   * once, before the first try (a forgotten subject is a `SubjectForgottenError`, before anything is
   * written). `undefined` when no event holds personal data to seal.
   */
  sealing(target: SealingTarget, events: ReadonlyArray<EventToSeal>, signal: AbortSignal | undefined): Promise<SealEvent | undefined>;
  /** Puts an event's personal fields back into its stored data (or their replacements, once forgotten), before its schema reads it. */
  openFields(raw: unknown, sealed: unknown, ref: SealedEventRef): OpenedData;
  /** Seals a snapshot's state for the subjects of `trail`, bound to its place. */
  sealState(trail: Trail, state: Uint8Array, place: SnapshotPlace): SealedState;
  /** Opens a snapshot's sealed state stored at `place`; `forgotten` once any of its subjects is. */
  openState(body: unknown, shares: unknown, place: SnapshotPlace, where: string): OpenedState;
}

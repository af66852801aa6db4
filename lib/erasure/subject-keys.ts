import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConfigurationError, DynafoldError, KeyProviderError, SubjectForgottenError } from '../errors';
import { documentClient, withSignal } from '../dynamo';
import { Semaphore, requireInteger, requireTableName } from '../util';
import { dataKeyOf, type DataKey, type DeclaringStream, type PersonalCodec } from '../personal';
import { resolveDeclaration, type DeclaredFields } from './declaration';
import { SubjectKeysDefaults } from './defaults';
import { KeyCache, type HeldKey, type KnownKey } from './key-cache';
import type { KeyProvider } from './key-provider';
import { personalHooks } from './personal-hooks';
import { markForgotten, putNewKey, readKeyRecord, readKeyRecords, requireSubject, type KeyRecord } from './key-table';

/** Options of {@link SubjectKeys}. */
export interface SubjectKeysOptions {
  /** The DynamoDB client; never constructed or destroyed here. */
  readonly client: DynamoDBClient;
  /** The key table (see `subjectKeysTableDefinition`): one item per subject. */
  readonly table: string;
  /** Wraps each subject's data key: `LocalKeyProvider` for tests, `KmsKeyProvider` (`dynafold/kms`) in production. */
  readonly provider: KeyProvider;
  /**
   * How long a process keeps what it read of a subject's key before reading it again. A subject forgotten
   * by another process reads redacted here within this long.
   * @defaultValue 300000 (5 minutes, {@link SubjectKeysDefaults.cacheLifetimeMs})
   */
  readonly cacheLifetimeMs?: number | undefined;
  /** @defaultValue 10000 subjects ({@link SubjectKeysDefaults.cacheMaxEntries}) */
  readonly cacheMaxEntries?: number | undefined;
  /** @defaultValue 16 ({@link SubjectKeysDefaults.unwrapConcurrency}) */
  readonly unwrapConcurrency?: number | undefined;
  /** @internal The clock cache lifetimes are measured on, in epoch ms (tests move it on). @defaultValue `Date.now` */
  readonly now?: (() => number) | undefined;
}

/** What {@link SubjectKeys.forget} did. */
export interface ForgetResult {
  readonly subject: string;
  /** The key table the subject was forgotten in. */
  readonly table: string;
  /** When the subject was forgotten (ISO 8601): now, or when it first was. */
  readonly forgottenAt: string;
  /** It had been forgotten before: nothing changed. */
  readonly alreadyForgotten: boolean;
  /** A key was deleted (a subject with no personal data yet had none; the marker is left all the same). */
  readonly keyDeleted: boolean;
  /**
   * By when every process's cache has dropped the key (now plus the cache lifetime): rebuild the rows of
   * the subject's stream instances after it, or a process that still holds the key may fold its data in again.
   */
  readonly settledAt: string;
}

/** The key reads a store sent, for cost figures. */
export interface KeyReadStats {
  /** Subjects whose records were read from the table (a subject read again strongly consistent counts twice). */
  readonly keysRead: number;
  /** BatchGetItem and GetItem requests sent. */
  readonly requests: number;
  /** Data keys unwrapped by the provider. */
  readonly unwrapped: number;
}

/**
 * The data keys of the subjects whose personal data streams store, in a DynamoDB table: one random
 * AES-256 key per subject, wrapped by a key provider, made on the first append that needs it, read once
 * per cache lifetime per process, and deleted by {@link SubjectKeys.forget}, which leaves a marker so that
 * no key is ever made for the subject again. Share one instance per table in a process: it holds the cache.
 *
 * @example
 * ```ts
 * const keys = new SubjectKeys({ client, table: 'subject-keys', provider: new LocalKeyProvider({ key: randomBytes(32) }) })
 * const Customers = new EventStream({ ..., personalData: { keys, events: { Registered: { subject: { streamId: 'customerId' }, fields: { email: '[erased]' } } } } })
 * await keys.forget('c-1')
 * ```
 */
export class SubjectKeys {
  /** The DynamoDB client it was given (never destroyed here). */
  readonly client: DynamoDBClient;
  readonly table: string;
  readonly provider: KeyProvider;
  /** How long a process keeps what it read of a key (`cacheLifetimeMs` resolved). */
  readonly cacheLifetimeMs: number;
  private readonly documents: DynamoDBDocumentClient;
  private readonly cache: KeyCache;
  private readonly unwraps: Semaphore;
  /** Loads in flight, by subject: concurrent rows of a batch wait for one read of a subject's key. */
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly counts = { keysRead: 0, requests: 0, unwrapped: 0 };

  constructor(options: SubjectKeysOptions) {
    const where = 'SubjectKeys';
    if (options?.client === undefined || options.client === null)
      throw new ConfigurationError(`${where}: expected \`client\` to be a DynamoDBClient.`);
    this.client = options.client;
    this.table = requireTableName('table', options.table, where);
    const provider = options.provider as Partial<KeyProvider> | undefined;
    if (typeof provider?.newKey !== 'function' || typeof provider.unwrap !== 'function' || typeof provider.id !== 'string') {
      throw new ConfigurationError(`${where}: expected \`provider\` to be a KeyProvider (LocalKeyProvider, or KmsKeyProvider from dynafold/kms).`);
    }
    this.provider = options.provider;
    this.cacheLifetimeMs = requireInteger('cacheLifetimeMs', options.cacheLifetimeMs ?? SubjectKeysDefaults.cacheLifetimeMs, 0, undefined, where);
    const maxEntries = requireInteger('cacheMaxEntries', options.cacheMaxEntries ?? SubjectKeysDefaults.cacheMaxEntries, 1, undefined, where);
    const unwrapConcurrency = requireInteger(
      'unwrapConcurrency',
      options.unwrapConcurrency ?? SubjectKeysDefaults.unwrapConcurrency,
      1,
      undefined,
      where,
    );
    this.documents = documentClient(options.client);
    this.cache = new KeyCache(this.cacheLifetimeMs, maxEntries, options.now ?? Date.now);
    this.unwraps = new Semaphore(unwrapConcurrency);
  }

  /**
   * Reads the keys of `subjects` this process does not hold (or held past their lifetime, or found missing):
   * in one BatchGetItem per 100 subjects, eventually consistent, then strongly consistent for those it did
   * not find (a key made a moment ago). Every reader of the library calls it before it decodes; call it
   * yourself only around `decodeCommit`.
   */
  async load(subjects: Iterable<string>, options: { readonly signal?: AbortSignal | undefined } = {}): Promise<void> {
    const needed = new Set(subjects);
    const joined = await this.readOrJoin(needed, options.signal);
    // A load joined in flight may have read before another process made the key: what it found missing is
    // read again by this call, so a decode is told a key is missing only after a read that began after it asked.
    const missing = joined.filter((subject) => this.cache.peek(subject)?.kind === 'missing');
    if (missing.length > 0) await this.tracked(missing, this.read(missing, needed, options.signal));
  }

  /**
   * @internal The hooks a stream's codec seals and opens its personal data with, for the fields `option`
   * declares (checked against the stream: a `ConfigurationError` names what to fix). The store calls it
   * for a stream whose `personalData.keys` this is, and knows nothing else of personal data.
   */
  personalCodec(stream: DeclaringStream, option: DeclaredFields): PersonalCodec {
    return personalHooks(this, resolveDeclaration(stream, option));
  }

  /** @internal What this process holds of a subject's key, however old (see `load`). */
  known(subject: string): KnownKey | undefined {
    return this.cache.peek(subject);
  }

  /**
   * @internal The keys to seal new personal data of `subjects` with: each one's key, made (and stored) for a
   * subject that has none. A forgotten subject is a `SubjectForgottenError`: nothing is sealed for it.
   */
  async forWriting(subjects: ReadonlySet<string>, signal?: AbortSignal): Promise<Map<string, DataKey>> {
    const ticket = this.cache.begin();
    try {
      await this.load(subjects, { signal });
      const keys = new Map<string, DataKey>();
      for (const subject of subjects) {
        const loaded = this.cache.peek(subject);
        const known = loaded === undefined || loaded.kind === 'missing' ? await this.create(subject, subjects, signal) : loaded;
        if (known.kind === 'forgotten') throw new SubjectForgottenError(subject, known.forgottenAt);
        keys.set(subject, known.key);
      }
      // A forget this process completed while the keys were got (a key made for another subject, say) stops
      // the append as one completed before it would: nothing is sealed for a subject once `forget` resolved.
      for (const subject of subjects) {
        const forgottenAt = this.cache.forgottenSince(ticket, subject);
        if (forgottenAt !== undefined) throw new SubjectForgottenError(subject, forgottenAt);
      }
      return keys;
    } finally {
      this.cache.end(ticket);
    }
  }

  /**
   * Forgets a subject: deletes its data key and leaves a marker, so no key is ever made for it again and
   * an append of its personal data fails with `SubjectForgottenError`. From then on every reader reads its
   * personal fields as their declared replacements: in this process once it resolves (a key read or made
   * by a load still in flight is not kept), in others within `cacheLifetimeMs`. Rows and snapshots folded
   * before hold what they held until rebuilt: see the erasure guide. Idempotent.
   */
  async forget(subject: string, options: { readonly signal?: AbortSignal | undefined } = {}): Promise<ForgetResult> {
    requireSubject(subject, 'SubjectKeys.forget');
    const record = await markForgotten(withSignal(this.documents, options.signal), this.table, subject);
    this.cache.forgot(subject, record.forgottenAt);
    return { subject, table: this.table, ...record, settledAt: new Date(Date.now() + this.cacheLifetimeMs).toISOString() };
  }

  /** The key reads and unwraps this store sent so far. */
  get stats(): KeyReadStats {
    return { ...this.counts };
  }

  /** Reads the subjects not fresh in the cache, joining the loads in flight of those being read; resolves the subjects it joined. */
  private async readOrJoin(needed: ReadonlySet<string>, signal: AbortSignal | undefined): Promise<string[]> {
    const waits: Array<Promise<void>> = [];
    const toRead: string[] = [];
    const joined: string[] = [];
    for (const subject of needed) {
      if (this.cache.fresh(subject) !== undefined) continue;
      const pending = this.inFlight.get(subject);
      if (pending === undefined) {
        toRead.push(subject);
      } else {
        waits.push(pending);
        joined.push(subject);
      }
    }
    if (toRead.length > 0) waits.push(this.tracked(toRead, this.read(toRead, needed, signal)));
    await Promise.all(waits);
    return joined;
  }

  /** A read of `subjects`, which loads of them wait for until it settles. */
  private tracked(subjects: ReadonlyArray<string>, read: Promise<void>): Promise<void> {
    const settled = read.finally(() => {
      for (const subject of subjects) if (this.inFlight.get(subject) === settled) this.inFlight.delete(subject);
    });
    for (const subject of subjects) this.inFlight.set(subject, settled);
    return settled;
  }

  private async read(subjects: ReadonlyArray<string>, needed: ReadonlySet<string>, signal: AbortSignal | undefined): Promise<void> {
    // Taken before the first request: a forget this process completes meanwhile outranks what this read finds.
    const ticket = this.cache.begin();
    try {
      const documents = withSignal(this.documents, signal);
      const batches = (list: ReadonlyArray<string>) => Math.ceil(list.length / 100);
      const found = await readKeyRecords(documents, this.table, subjects, false, signal);
      this.count(subjects.length, batches(subjects));
      // Not found eventually consistent: maybe made a moment ago. A strongly consistent read decides.
      const unseen = subjects.filter((subject) => !found.has(subject));
      if (unseen.length > 0) {
        for (const [subject, record] of await readKeyRecords(documents, this.table, unseen, true, signal)) found.set(subject, record);
        this.count(unseen.length, batches(unseen));
      }
      await Promise.all(
        subjects.map(async (subject) => {
          const record = found.get(subject);
          const known: KnownKey = record === undefined ? { kind: 'missing' } : await this.knownOf(subject, record, signal);
          this.cache.settle(ticket, subject, known, needed);
        }),
      );
    } finally {
      this.cache.end(ticket);
    }
  }

  private async knownOf(subject: string, record: KeyRecord, signal: AbortSignal | undefined): Promise<HeldKey> {
    if (record.kind === 'forgotten') return record;
    const bytes = await this.unwraps.use(() => this.unwrap(subject, record), signal);
    return { kind: 'key', key: dataKeyOf(bytes) };
  }

  private async unwrap(subject: string, record: { readonly wrapped: Uint8Array; readonly provider: string }): Promise<Uint8Array> {
    this.counts.unwrapped++;
    try {
      return await this.provider.unwrap(subject, record.wrapped);
    } catch (error) {
      // A key another provider wrapped (its id is stored beside it): say which, whatever this one answered.
      if (record.provider !== '' && record.provider !== this.provider.id) {
        throw new KeyProviderError('unwrap', subject, {
          cause: error,
          advice:
            `its data key was wrapped by key provider ${record.provider}, and this one is ${this.provider.id}: ` +
            `read the key table ${this.table} with the provider (and key) that wrote it.`,
        });
      }
      throw error instanceof DynafoldError ? error : new KeyProviderError('unwrap', subject, { cause: error });
    }
  }

  /** Makes a key for a subject the table holds nothing for; when another process made one first (or forgot the subject), that is what counts. */
  private async create(subject: string, needed: ReadonlySet<string>, signal: AbortSignal | undefined): Promise<HeldKey> {
    const ticket = this.cache.begin();
    try {
      return this.cache.settle(ticket, subject, await this.make(subject, signal), needed);
    } finally {
      this.cache.end(ticket);
    }
  }

  /** The key stored for a subject the table held nothing for: the one made here, or what another process stored first. */
  private async make(subject: string, signal: AbortSignal | undefined): Promise<HeldKey> {
    let made;
    try {
      made = await this.provider.newKey(subject);
    } catch (error) {
      throw error instanceof DynafoldError ? error : new KeyProviderError('make', subject, { cause: error });
    }
    const documents = withSignal(this.documents, signal);
    if (await putNewKey(documents, this.table, subject, { wrapped: made.wrapped, provider: this.provider.id })) {
      return { kind: 'key', key: dataKeyOf(made.key) };
    }
    const record = await readKeyRecord(documents, this.table, subject);
    this.count(1, 1);
    if (record === undefined) {
      throw new ConfigurationError(
        `The key table ${this.table} holds an item for subject "${subject}" with neither a key nor a forget marker: it was not written by dynafold; delete it.`,
      );
    }
    return this.knownOf(subject, record, signal);
  }

  private count(keysRead: number, requests: number): void {
    this.counts.keysRead += keysRead;
    this.counts.requests += requests;
  }
}

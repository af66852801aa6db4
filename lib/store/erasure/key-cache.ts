import type { DataKey } from './cipher';

/** What this process knows of a subject's key. */
export type KnownKey =
  | { readonly kind: 'key'; readonly key: DataKey }
  /** The subject was forgotten: its data reads redacted, and no key is made for it again. */
  | { readonly kind: 'forgotten'; readonly forgottenAt: string }
  /** The key table holds nothing for the subject (read strongly consistent). */
  | { readonly kind: 'missing' };

/** A subject's key, or that it was forgotten: what the key table can hold for a subject. */
export type HeldKey = Exclude<KnownKey, { readonly kind: 'missing' }>;

interface Entry {
  readonly known: KnownKey;
  readonly loadedAt: number;
}

/**
 * The keys this process has read, each for a bounded lifetime: once it is over, the next load reads the
 * subject again, so a subject forgotten by another process reads redacted here too within a lifetime. A
 * decode that can't wait finds what was loaded, of any age: the lifetime decides when keys are read again,
 * never that a batch's keys vanish between its load and its decode. Past `maxEntries` the entries that
 * have outlived their lifetime go first, then the least recently loaded, but never one the load in hand
 * needs (so the bound is soft for a single load of more subjects than it).
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly lifetimeMs: number,
    readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** What is known of `subject`, however old; `undefined` when nothing was loaded. */
  peek(subject: string): KnownKey | undefined {
    return this.entries.get(subject)?.known;
  }

  /** What is known of `subject` within its lifetime; `undefined` when it must be read again. */
  fresh(subject: string): KnownKey | undefined {
    const entry = this.entries.get(subject);
    return entry !== undefined && this.now() - entry.loadedAt < this.lifetimeMs ? entry.known : undefined;
  }

  /** Records what a load found, keeping `needed` (the load's subjects) when making room. */
  put(subject: string, known: KnownKey, needed: ReadonlySet<string> = new Set([subject])): void {
    this.entries.delete(subject);
    this.entries.set(subject, { known, loadedAt: this.now() });
    if (this.entries.size > this.maxEntries) this.makeRoom(needed);
  }

  /** How many subjects are held. */
  get size(): number {
    return this.entries.size;
  }

  private makeRoom(needed: ReadonlySet<string>): void {
    const now = this.now();
    // Map order is load order: the first entries are the oldest loads.
    for (const [subject, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries) return;
      if (!needed.has(subject) && now - entry.loadedAt >= this.lifetimeMs) this.entries.delete(subject);
    }
    for (const subject of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) return;
      if (!needed.has(subject)) this.entries.delete(subject);
    }
  }
}

import type { KnownKey } from '../personal';
import { ForgetFence, type FenceTicket } from './forget-fence';
export type { HeldKey, KnownKey } from '../personal';

type Forgotten = Extract<KnownKey, { readonly kind: 'forgotten' }>;

/** A load's place among this process's forgets, and when it began: what it finds is as old as its first request. */
export interface LoadTicket extends FenceTicket {
  readonly startedAt: number;
}

interface Entry {
  readonly known: KnownKey;
  readonly loadedAt: number;
}

/**
 * The keys this process has read. An entry is in one of three states, and moves between them so:
 *
 * - `key`: held for `lifetimeMs` from when the load that found it began (not when its answer came: a read
 *   answered slowly may predate another process's forget), then read again, so that a subject forgotten
 *   by another process reads redacted here too within a lifetime.
 * - `missing`: never an answer to keep. The next load reads the subject again, since another process may
 *   have made its key since (an event sealed for the subject proves it did).
 * - `forgotten`: final. The table never gives a forgotten subject a key again, so nothing replaces the
 *   entry: not a later read, and not what a load or a key's creation that began before the forget found
 *   (`settle` with the ticket it took; the ticket holds even when the entry was dropped to make room).
 *
 * A decode that can't wait finds what was loaded, of any age: the lifetime decides when keys are read
 * again, never that a batch's keys vanish between its load and its decode. Past `maxEntries` the entries
 * no longer fresh go first, then the least recently loaded, but never one the load in hand needs (so the
 * bound is soft for a single load of more subjects than it).
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly fence = new ForgetFence();

  constructor(
    readonly lifetimeMs: number,
    readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** What is known of `subject`, however old; `undefined` when nothing was loaded. */
  peek(subject: string): KnownKey | undefined {
    return this.entries.get(subject)?.known;
  }

  /** What is known of `subject` that need not be read again; `undefined` when it must be. */
  fresh(subject: string): KnownKey | undefined {
    const entry = this.entries.get(subject);
    return entry !== undefined && this.isFresh(entry) ? entry.known : undefined;
  }

  /** A ticket for a load or a key's creation about to send its first request; give it back with `end`. */
  begin(): LoadTicket {
    return { ...this.fence.begin(), startedAt: this.now() };
  }

  /** The load of `ticket` is done. */
  end(ticket: LoadTicket): void {
    this.fence.end(ticket);
  }

  /**
   * Records what a load that began with `ticket` found of `subject`, keeping `needed` (the load's subjects)
   * when making room, and resolves what the process knows now: the subject forgotten, when it was (here
   * since the ticket was taken, or as the entry says), else what the load found.
   */
  settle<Found extends KnownKey>(ticket: LoadTicket, subject: string, found: Found, needed: ReadonlySet<string>): Found | Forgotten {
    const forgottenAt = this.forgottenSince(ticket, subject);
    const known: Found | Forgotten = forgottenAt === undefined ? found : { kind: 'forgotten', forgottenAt };
    this.put(subject, known, ticket.startedAt, needed);
    return known;
  }

  /** When `subject` was forgotten, if the entry says it was, or this process forgot it since `ticket` was taken. */
  forgottenSince(ticket: LoadTicket, subject: string): string | undefined {
    const held = this.entries.get(subject)?.known;
    return held?.kind === 'forgotten' ? held.forgottenAt : this.fence.forgottenSince(subject, ticket);
  }

  /** This process forgot `subject`: final, whatever a load in flight finds. */
  forgot(subject: string, forgottenAt: string): void {
    this.fence.forgot(subject, forgottenAt);
    this.put(subject, { kind: 'forgotten', forgottenAt }, this.now(), new Set([subject]));
  }

  /** How many subjects are held. */
  get size(): number {
    return this.entries.size;
  }

  private isFresh(entry: Entry): boolean {
    switch (entry.known.kind) {
      case 'forgotten':
        return true;
      case 'missing':
        return false;
      case 'key':
        return this.now() - entry.loadedAt < this.lifetimeMs;
    }
  }

  private put(subject: string, known: KnownKey, loadedAt: number, needed: ReadonlySet<string>): void {
    this.entries.delete(subject);
    this.entries.set(subject, { known, loadedAt });
    if (this.entries.size > this.maxEntries) this.makeRoom(needed);
  }

  private makeRoom(needed: ReadonlySet<string>): void {
    // Map order is load order: the first entries are the oldest loads.
    for (const [subject, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries) return;
      if (!needed.has(subject) && !this.isFresh(entry)) this.entries.delete(subject);
    }
    for (const subject of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) return;
      if (!needed.has(subject)) this.entries.delete(subject);
    }
  }
}

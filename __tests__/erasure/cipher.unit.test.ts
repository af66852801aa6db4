/**
 * The pure parts of erasure: sealing with AES-256-GCM (a fresh IV per value, bound to its place), a value
 * sealed for several subjects (it opens only while all of them have keys), and the key cache's lifetime
 * and bound, on an injected clock.
 */
import fc from 'fast-check';
import { newDataKey, open, seal, SEAL_OVERHEAD_BYTES, SealFormat } from '../../lib/personal/cipher';
import { KeyCache, type KnownKey } from '../../lib/erasure/key-cache';
import { sealBlob } from '../../lib/personal/sealed-blob';

test('a sealed value opens only under its key and for its place, whatever bytes change', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (plaintext, at, flip) => {
      const { key } = newDataKey();
      const sealed = seal(key, plaintext, 'place');
      expect(sealed.length).toBe(plaintext.length + SEAL_OVERHEAD_BYTES);
      expect(open(key, sealed, 'place')).toEqual(Buffer.from(plaintext));
      expect(open(key, sealed, 'another place')).toBeUndefined();
      expect(open(newDataKey().key, sealed, 'place')).toBeUndefined();
      const changed = Buffer.from(sealed);
      const index = at % changed.length;
      changed[index] = (changed[index] as number) ^ flip;
      expect(open(key, changed, 'place')).toBeUndefined();
      expect(open(key, sealed.subarray(0, sealed.length - 1), 'place')).toBeUndefined();
    }),
  );
});

test('a value opens only for the context of the format its first byte names, and a string context only in the first format', () => {
  const { key } = newDataKey();
  const contexts = (format: number) => (format === SealFormat.first ? 'place' : format === SealFormat.versioned ? 'place at version 2' : undefined);
  const versioned = seal(key, Buffer.from('ada'), 'place at version 2', SealFormat.versioned);
  expect(versioned[0]).toBe(2);
  expect(open(key, versioned, contexts)?.toString()).toBe('ada');
  expect(open(key, versioned, 'place at version 2')).toBeUndefined();
  const first = seal(key, Buffer.from('ada'), 'place');
  expect(open(key, first, contexts)?.toString()).toBe('ada');
  expect(open(key, first, 'place')?.toString()).toBe('ada');
  // The format byte changed: the value is read for another context, and fails.
  expect(open(key, Buffer.concat([Buffer.of(1), versioned.subarray(1)]), contexts)).toBeUndefined();
  expect(open(key, Buffer.concat([Buffer.of(2), first.subarray(1)]), contexts)).toBeUndefined();
  expect(open(key, Buffer.concat([Buffer.of(3), first.subarray(1)]), contexts)).toBeUndefined();
});

test('each value gets a fresh IV: the same plaintext never seals to the same bytes', () => {
  const { key } = newDataKey();
  const seen = new Set(Array.from({ length: 200 }, () => seal(key, Buffer.from('ada@example.com'), 'place').toString('hex')));
  expect(seen.size).toBe(200);
});

test('a blob sealed for several subjects: each holds a share of its key, and no share alone opens it', () => {
  const ada = newDataKey().key;
  const grace = newDataKey().key;
  const blob = sealBlob(
    new Map([
      ['ada', ada],
      ['grace', grace],
    ]),
    Buffer.from('state'),
    'snapshot',
  );
  expect(Object.keys(blob.shares).sort()).toEqual(['ada', 'grace']);
  const share = (subject: 'ada' | 'grace', key: typeof ada) => open(key, blob.shares[subject] as Buffer, 'snapshot\nshare\n' + subject) as Buffer;
  const xor = Buffer.from(share('ada', ada).map((byte, i) => byte ^ (share('grace', grace)[i] as number)));
  expect(open(xor, blob.body, 'snapshot')?.toString()).toBe('state');
  expect(open(share('ada', ada), blob.body, 'snapshot')).toBeUndefined();
  expect(open(share('grace', grace), blob.body, 'snapshot')).toBeUndefined();
});

describe('the key cache', () => {
  const key = { kind: 'key', key: newDataKey().key } as const;
  /** What a load that began and ended at once found. */
  const put = (cache: KeyCache, subject: string, found: KnownKey, needed: ReadonlySet<string> = new Set([subject])) => {
    const ticket = cache.begin();
    cache.settle(ticket, subject, found, needed);
    cache.end(ticket);
  };

  test('keeps an entry fresh for its lifetime, then asks for it again, yet decodes still find it', () => {
    let now = 0;
    const cache = new KeyCache(1000, 10, () => now);
    put(cache, 'ada', key);
    now = 999;
    expect(cache.fresh('ada')).toBe(key);
    now = 1000;
    expect(cache.fresh('ada')).toBeUndefined();
    expect(cache.peek('ada')).toBe(key);
  });

  test('past its bound it drops what outlived its lifetime first, then the oldest loads, never what the load in hand needs', () => {
    let now = 0;
    const cache = new KeyCache(1000, 3, () => now);
    put(cache, 'a', key);
    now = 10;
    put(cache, 'b', key);
    put(cache, 'c', key);
    now = 1005;
    put(cache, 'd', key);
    expect(['a', 'b', 'c', 'd'].filter((subject) => cache.peek(subject) !== undefined)).toEqual(['b', 'c', 'd']);
    const needed = new Set(['b', 'e', 'f']);
    for (const subject of needed) put(cache, subject, key, needed);
    // b, e and f are needed: c goes first (it outlived its lifetime), then d, the oldest load left.
    expect(['b', 'c', 'd', 'e', 'f'].filter((subject) => cache.peek(subject) !== undefined)).toEqual(['b', 'e', 'f']);
    const many = new Set(['g', 'h', 'i', 'j']);
    for (const subject of many) put(cache, subject, key, many);
    // A single load of more subjects than the bound keeps them all until the next.
    expect(cache.size).toBe(4);
  });

  test('a forgotten entry is final: never stale, never replaced by what a load found, whenever that load began', () => {
    let now = 0;
    const cache = new KeyCache(1000, 10, () => now);
    const before = cache.begin();
    cache.forgot('ada', 'then');
    now = 1_000_000;
    expect(cache.fresh('ada')).toEqual({ kind: 'forgotten', forgottenAt: 'then' });
    expect(cache.settle(before, 'ada', key, new Set(['ada']))).toEqual({ kind: 'forgotten', forgottenAt: 'then' });
    const after = cache.begin();
    expect(cache.settle(after, 'ada', key, new Set(['ada']))).toMatchObject({ kind: 'forgotten' });
    cache.end(before);
    cache.end(after);
    expect(cache.peek('ada')).toMatchObject({ kind: 'forgotten' });
  });

  test('a load that began before a forget is refused even when the forgotten entry was dropped to make room meanwhile', () => {
    const cache = new KeyCache(1000, 1, () => 0);
    const before = cache.begin();
    cache.forgot('ada', 'then');
    put(cache, 'grace', key); // the bound of one drops ada's entry
    expect(cache.peek('ada')).toBeUndefined();
    expect(cache.settle(before, 'ada', key, new Set(['ada']))).toEqual({ kind: 'forgotten', forgottenAt: 'then' });
    cache.end(before);
    // A load that begins once the forget is done reads the marker from the table: nothing is refused any more.
    const later = cache.begin();
    expect(cache.settle(later, 'grace', key, new Set(['grace']))).toBe(key);
    cache.end(later);
  });

  test('a missing key is never an answer to keep: the next load reads it again', () => {
    const cache = new KeyCache(1000, 10, () => 0);
    put(cache, 'ada', { kind: 'missing' });
    expect(cache.fresh('ada')).toBeUndefined();
    expect(cache.peek('ada')).toEqual({ kind: 'missing' });
    put(cache, 'ada', key);
    expect(cache.fresh('ada')).toBe(key);
  });
});

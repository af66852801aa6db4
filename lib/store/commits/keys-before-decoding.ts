import type { KeyLoader } from '../../personal';
import { personalSubjects } from '../codec';

/** An item to decode, and the key store of its stream's personal data (none for a stream without any). */
export interface ItemToDecode {
  readonly keys: KeyLoader | undefined;
  readonly item: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Loads the keys the personal data of `items` needs, so that they decode without waiting: one read per
 * key store, of the subjects it did not load within their lifetime (one BatchGetItem per 100); nothing for
 * items without any. The one place keys are loaded before decoding: the commit layer calls it for what it
 * reads, decoders for the images a stream delivers.
 */
export async function loadKeysFor(items: Iterable<ItemToDecode>, signal?: AbortSignal): Promise<void> {
  const wanted = new Map<KeyLoader, Set<string>>();
  for (const { keys, item } of items) {
    if (keys === undefined || item === undefined) continue;
    const subjects = personalSubjects([item]);
    if (subjects.size === 0) continue;
    const all = wanted.get(keys) ?? new Set<string>();
    for (const subject of subjects) all.add(subject);
    wanted.set(keys, all);
  }
  await Promise.all([...wanted].map(([keys, subjects]) => keys.load(subjects, { signal })));
}

import type { PersonalCodec } from '../../personal';
import { Layout } from '../layout';

type Item = Readonly<Record<string, unknown>>;

/** The subjects whose keys reading `items` needs: those named in their `pd` attributes, and in those of a commit's events. */
export function personalSubjects(items: Iterable<Item | undefined>): Set<string> {
  const subjects = new Set<string>();
  const add = (attributes: unknown) => {
    const sealed = (attributes as Item | undefined)?.[Layout.personal];
    if (typeof sealed === 'object' && sealed !== null) for (const subject of Object.keys(sealed)) subjects.add(subject);
  };
  for (const item of items) {
    if (item === undefined) continue;
    add(item);
    const events = item[Layout.events];
    if (Array.isArray(events)) for (const event of events) add(event);
  }
  return subjects;
}

/**
 * Loads the keys of the subjects `items` hold personal data of, so that they decode without waiting (one
 * BatchGetItem for those not loaded within their lifetime). Nothing is read for items without any.
 */
export async function loadKeysOf(personal: PersonalCodec | undefined, items: Iterable<Item | undefined>, signal?: AbortSignal): Promise<void> {
  if (personal === undefined) return;
  const subjects = personalSubjects(items);
  if (subjects.size > 0) await personal.keys.load(subjects, { signal });
}

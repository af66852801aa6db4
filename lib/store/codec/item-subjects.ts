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

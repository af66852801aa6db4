/**
 * Whether a stored item (plain data, as read back) holds just what `written` wrote, attribute for
 * attribute: bytes by their content, sets whatever their order. For a write that stores no id of its
 * own (see `sendConditional`) whose item is unique enough: a snapshot carries its versions, state and time.
 */
export function sameItem(written: Readonly<Record<string, unknown>>, stored: Readonly<Record<string, unknown>>): boolean {
  return sameValue(written, stored);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Uint8Array || b instanceof Uint8Array) return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0;
  if (a instanceof Set || b instanceof Set)
    return a instanceof Set && b instanceof Set && a.size === b.size && [...a].every((each: unknown) => b.has(each));
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((each, i) => sameValue(each, b[i]));
  if (isMap(a) || isMap(b)) {
    if (!isMap(a) || !isMap(b)) return false;
    // The document client leaves out undefined attributes (`removeUndefinedValues`): so does this.
    const keys = Object.keys(a).filter((key) => a[key] !== undefined);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && sameValue(a[key], b[key]));
  }
  return Object.is(a, b);
}

function isMap(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null;
}

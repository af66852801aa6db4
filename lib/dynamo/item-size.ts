/** How many bytes a string (a value or a name) counts for. */
type StringBytes = (text: string) => number;

/** Its UTF-8 length, as DynamoDB counts it. */
const utf8Bytes: StringBytes = (text) => Buffer.byteLength(text);
/** A bound with no encoding: no UTF-16 code unit takes more than 3 bytes of UTF-8. */
const boundBytes: StringBytes = (text) => text.length * 3;

/**
 * Estimates an item's stored size the way DynamoDB counts it: attribute names plus values, strings and
 * binaries by byte length, numbers by about one byte per two digits, and a few bytes per map or list.
 * It errs on the large side, so an item it accepts is accepted by DynamoDB.
 */
export function itemSize(item: Readonly<Record<string, unknown>>): number {
  return sizeOf(item, utf8Bytes);
}

/**
 * Whether an item is at most `limit` bytes by {@link itemSize}. Most items are far below DynamoDB's limits, so
 * a bound that needs no UTF-8 encoding answers first; only an item the bound can't settle is sized byte by byte.
 */
export function itemFits(item: Readonly<Record<string, unknown>>, limit: number): boolean {
  return sizeOf(item, boundBytes) <= limit || sizeOf(item, utf8Bytes) <= limit;
}

function sizeOf(item: Readonly<Record<string, unknown>>, bytes: StringBytes): number {
  let size = 0;
  // `for…in` over a plain item: no array of entries made for each item and map sized.
  for (const name in item) {
    const value = item[name];
    if (value !== undefined && Object.hasOwn(item, name)) size += bytes(name) + valueSize(value, bytes);
  }
  return size;
}

function valueSize(value: unknown, bytes: StringBytes): number {
  if (typeof value === 'string') return bytes(value);
  if (typeof value === 'number' || typeof value === 'bigint') return Math.ceil(String(value).length / 2) + 1;
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, member) => sum + valueSize(member, bytes), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, member) => sum + 1 + valueSize(member, bytes), 0);
  if (typeof value === 'object') {
    let size = 3;
    for (const name in value) {
      const member = (value as Record<string, unknown>)[name];
      if (member !== undefined && Object.hasOwn(value, name)) size += 1 + bytes(name) + valueSize(member, bytes);
    }
    return size;
  }
  return 0;
}

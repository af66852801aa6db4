/**
 * Estimates an item's stored size the way DynamoDB counts it: attribute names plus values, strings and
 * binaries by byte length, numbers by about one byte per two digits, and a few bytes per map or list.
 * It errs on the large side, so an item it accepts is accepted by DynamoDB.
 */
export function itemSize(item: Readonly<Record<string, unknown>>): number {
  let size = 0;
  // `for…in` over a plain item: no array of entries made for each item and map sized.
  for (const name in item) {
    const value = item[name];
    if (value !== undefined && Object.hasOwn(item, name)) size += Buffer.byteLength(name) + valueSize(value);
  }
  return size;
}

function valueSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return Math.ceil(String(value).length / 2) + 1;
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, member) => sum + valueSize(member), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, member) => sum + 1 + valueSize(member), 0);
  if (typeof value === 'object') {
    let size = 3;
    for (const name in value) {
      const member = (value as Record<string, unknown>)[name];
      if (member !== undefined && Object.hasOwn(value, name)) size += 1 + Buffer.byteLength(name) + valueSize(member);
    }
    return size;
  }
  return 0;
}

/**
 * Whether an item is at most `limit` bytes by {@link itemSize}. Most items are far below DynamoDB's limits, so
 * a bound that needs no UTF-8 encoding (3 bytes per UTF-16 code unit, which no string exceeds) answers
 * first; only an item the bound can't settle is sized byte by byte.
 */
export function itemFits(item: Readonly<Record<string, unknown>>, limit: number): boolean {
  return itemSizeBound(item) <= limit || itemSize(item) <= limit;
}

function itemSizeBound(item: Readonly<Record<string, unknown>>): number {
  let size = 0;
  for (const name in item) {
    const value = item[name];
    if (value !== undefined && Object.hasOwn(item, name)) size += name.length * 3 + valueSizeBound(value);
  }
  return size;
}

function valueSizeBound(value: unknown): number {
  if (typeof value === 'string') return value.length * 3;
  if (typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && !(value instanceof Set) && !Array.isArray(value)) {
    let size = 3;
    for (const name in value) {
      const member = (value as Record<string, unknown>)[name];
      if (member !== undefined && Object.hasOwn(value, name)) size += 1 + name.length * 3 + valueSizeBound(member);
    }
    return size;
  }
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, member) => sum + 1 + valueSizeBound(member), 0);
  if (value instanceof Set) return [...value].reduce((sum: number, member) => sum + valueSizeBound(member), 0);
  return valueSize(value);
}

/**
 * A map that keeps its `capacity` most recently used keys: setting a key past it forgets the least recently
 * used one. Reading a key counts as a use. A capacity of 0 keeps nothing.
 */
export class RecentlyUsed<Value> {
  /** Least recently used first (a `Map` keeps insertion order). */
  private readonly values = new Map<string, Value>();

  constructor(private readonly capacity: number) {}

  get(key: string): Value | undefined {
    const value = this.values.get(key);
    if (value !== undefined) this.touch(key, value);
    return value;
  }

  set(key: string, value: Value): void {
    if (this.capacity === 0) return;
    this.touch(key, value);
    if (this.values.size > this.capacity) this.values.delete(this.values.keys().next().value as string);
  }

  /** Moves `key` to the most recently used end. */
  private touch(key: string, value: Value): void {
    this.values.delete(key);
    this.values.set(key, value);
  }
}

/**
 * Results of a pure function of a string, kept per owner (a read model, a stream definition): the owner is
 * held weakly, and at most `kept` results of one owner are kept, all dropped at once when full (the calls
 * after it make them again). For the hot paths that ask for the same few thousand keys over and over.
 */
export class OwnedMemo<Owner extends object, Value> {
  private readonly byOwner = new WeakMap<Owner, Map<string, Value>>();

  constructor(private readonly kept: number) {}

  /** `make()`'s result for `key` of `owner`, made once while kept. */
  get(owner: Owner, key: string, make: () => Value): Value {
    let known = this.byOwner.get(owner);
    if (known === undefined) this.byOwner.set(owner, (known = new Map()));
    let value = known.get(key);
    if (value === undefined) {
      value = make();
      if (known.size >= this.kept) known.clear();
      known.set(key, value);
    }
    return value;
  }
}

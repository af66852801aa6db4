/**
 * The items of several async iterables as they come, each source read one item ahead at most (so memory
 * stays bounded by the number of sources). Rejects with the first source's error, closing the others.
 */
export async function* merge<T>(sources: ReadonlyArray<AsyncIterable<T>>): AsyncGenerator<T> {
  const iterators = sources.map((source) => source[Symbol.asyncIterator]());
  const pending = new Map<number, Promise<{ index: number; result: IteratorResult<T> }>>();
  const pull = (index: number) => {
    const next = (iterators[index] as AsyncIterator<T>).next().then((result) => ({ index, result }));
    // A source failing after another already did must not go unhandled.
    next.catch(() => undefined);
    pending.set(index, next);
  };
  iterators.forEach((_iterator, index) => pull(index));
  try {
    while (pending.size > 0) {
      const { index, result } = await Promise.race(pending.values());
      if (result.done === true) {
        pending.delete(index);
        continue;
      }
      pull(index);
      yield result.value;
    }
  } finally {
    // Stopped early (a break, an error): let every source that is still open clean up.
    await Promise.allSettled([...pending.keys()].map((index) => iterators[index]?.return?.()));
  }
}

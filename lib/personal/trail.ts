import type { DataKey } from './cipher';

/** The subjects whose personal data a value holds in the clear, with the key each was opened (or sealed) with. */
export type Trail = ReadonlyMap<string, DataKey>;

/** Trails of decoded events and snapshots, by the object a reader returned: they travel with it, and go with it. */
const trails = new WeakMap<object, Trail>();

/** The trail of an event or snapshot this library decoded or appended; `undefined` for one without personal data. */
export function trailOf(value: unknown): Trail | undefined {
  return typeof value === 'object' && value !== null ? trails.get(value) : undefined;
}

/** Records `value`'s trail, when it has one; returns `value`. */
export function withTrail<T extends object>(value: T, trail: Trail | undefined): T {
  if (trail !== undefined && trail.size > 0) trails.set(value, trail);
  return value;
}

/**
 * Gathers the trails of what a fold takes in (a snapshot's state, then events): the subjects whose personal
 * data the folded state may hold, so a snapshot of it is sealed for each of them.
 */
export class TrailCollector {
  private readonly subjects = new Map<string, DataKey>();

  constructor(start?: unknown) {
    this.add(start);
  }

  add(value: unknown): void {
    for (const [subject, key] of trailOf(value) ?? []) this.subjects.set(subject, key);
  }

  /** `evolve`, noting each event it folds. */
  watching<State, Event>(evolve: (state: State, event: Event) => State): (state: State, event: Event) => State {
    return (state, event) => {
      this.add(event);
      return evolve(state, event);
    };
  }

  get trail(): Trail {
    return this.subjects;
  }
}

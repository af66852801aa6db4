/** What the simulation did, by kind (reshards, faults, error answers), for a run's figures. */
export class SimulationStats {
  private readonly counts = new Map<string, number>();

  count(kind: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }

  get(kind: string): number {
    return this.counts.get(kind) ?? 0;
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
  }
}

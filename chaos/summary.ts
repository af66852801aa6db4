/** What a chaos run did and found, printed as one table at the end (as text, or Markdown for the docs). */
export class ChaosSummary {
  runs = 0;
  events = 0;
  readonly faults = new Map<string, number>();
  crashes = 0;
  leasePauses = 0;
  rowsChecked = 0;
  divergedRows = 0;
  lostEvents = 0;
  doubleApplied = 0;
  badInputKinds = 0;
  /** Of `rowsChecked`: rows fed by several streams and stream instances. */
  multiSourceRows = 0;
  /** Of `rowsChecked`: removed rows (tombstones), hidden from `get` and shown with `includeRemoved`. */
  removedRows = 0;
  /** Outbox publications, republications included. */
  outboxPublished = 0;
  /** Republications of a message already published (same id). */
  outboxDuplicates = 0;
  /** Messages of applied events never published, or left in the outbox. */
  outboxMissing = 0;
  /** A row's message first published after a later one of the same source instance. */
  outboxDisorder = 0;
  /** Rows parked by a poisoned `evolve`, then replayed by `retryParked` once it was fixed. */
  rowsParked = 0;
  /** Events a deployed bug made `evolve` throw on, before any fix (several per poisoned row). */
  poisonEvents = 0;
  /** Fixes deployed for only some of a schedule's kinds of bug, after which rows still choking stayed parked. */
  partialFixes = 0;
  /** Parked events skipped with `skipParked` (left out of the rows' folds). */
  skips = 0;
  /** Delivery schedules whose records were read through simulated shards. */
  simulatedSchedules = 0;
  /** Events a row applied after a later version of the same source instance. */
  outOfOrder = 0;
  /** The `shards` world: shards of the simulated stream's lineage, splits and rollovers among them. */
  shardsOpened = 0;
  shardSplits = 0;
  shardRollovers = 0;
  /** Consumers stopped mid-run and replaced by one waiting on the lease. */
  feedRestarts = 0;
  /** Consumers whose lease lapsed (renewals stalled on purpose, or a host too busy to renew), ended with LeaseLostError and replaced. */
  leaseLapses = 0;
  /** Rolling-deploy schedules: last month's and today's definitions of a stream at once, parking on. */
  rollingSchedules = 0;
  /** Rows and records last month's code failed (and reported) for an event today's code wrote; never counted towards parking. */
  tooNewFailures = 0;
  /** The reactions world: schedules of a reaction and a workflow with timers under every fault. */
  reactionSchedules = 0;
  /** Calls of a reaction's or a workflow's `processBatch` cut short at a random point, their batch delivered again. */
  callsCutShort = 0;
  /** Effects looked for in the targets (reservations, timers' firings, shipments, cancellations). */
  effectsChecked = 0;
  effectsLost = 0;
  /** Effects found more than once, or for no event. */
  effectsDoubled = 0;
  timersFired = 0;
  /** Timers fired by a sweep before they were due. */
  timersEarly = 0;
  /** Inputs the workflows' instance streams recorded (received or ignored). */
  workflowInputs = 0;
  /** Workflow instances whose stream holds an input twice or misses one. */
  inputsMisrecorded = 0;
  readonly problems: string[] = [];

  /** Writes whose answer a fault lost after DynamoDB applied them, on every client (`lostResponse:*`). */
  lostAnswers(): number {
    let lost = 0;
    for (const [key, n] of this.faults) if (key.startsWith('lostResponse:') || key.includes('-lostResponse:')) lost += n;
    return lost;
  }

  addFaults(counts: ReadonlyMap<string, number>): void {
    for (const [key, value] of counts) this.faults.set(key, (this.faults.get(key) ?? 0) + value);
  }

  problem(message: string): void {
    if (this.problems.length < 50) this.problems.push(message);
  }

  get ok(): boolean {
    return (
      this.divergedRows === 0 &&
      this.lostEvents === 0 &&
      this.doubleApplied === 0 &&
      this.outOfOrder === 0 &&
      this.outboxMissing === 0 &&
      this.outboxDisorder === 0 &&
      this.effectsLost === 0 &&
      this.effectsDoubled === 0 &&
      this.timersEarly === 0 &&
      this.inputsMisrecorded === 0 &&
      this.problems.length === 0
    );
  }

  merge(other: ChaosSummary): void {
    this.runs += other.runs;
    this.events += other.events;
    this.addFaults(other.faults);
    this.crashes += other.crashes;
    this.leasePauses += other.leasePauses;
    this.rowsChecked += other.rowsChecked;
    this.divergedRows += other.divergedRows;
    this.lostEvents += other.lostEvents;
    this.doubleApplied += other.doubleApplied;
    this.badInputKinds += other.badInputKinds;
    this.multiSourceRows += other.multiSourceRows;
    this.rowsParked += other.rowsParked;
    this.poisonEvents += other.poisonEvents;
    this.partialFixes += other.partialFixes;
    this.skips += other.skips;
    this.simulatedSchedules += other.simulatedSchedules;
    this.outOfOrder += other.outOfOrder;
    this.removedRows += other.removedRows;
    this.outboxPublished += other.outboxPublished;
    this.outboxDuplicates += other.outboxDuplicates;
    this.outboxMissing += other.outboxMissing;
    this.outboxDisorder += other.outboxDisorder;
    this.shardsOpened += other.shardsOpened;
    this.shardSplits += other.shardSplits;
    this.shardRollovers += other.shardRollovers;
    this.feedRestarts += other.feedRestarts;
    this.leaseLapses += other.leaseLapses;
    this.rollingSchedules += other.rollingSchedules;
    this.tooNewFailures += other.tooNewFailures;
    this.reactionSchedules += other.reactionSchedules;
    this.callsCutShort += other.callsCutShort;
    this.effectsChecked += other.effectsChecked;
    this.effectsLost += other.effectsLost;
    this.effectsDoubled += other.effectsDoubled;
    this.timersFired += other.timersFired;
    this.timersEarly += other.timersEarly;
    this.workflowInputs += other.workflowInputs;
    this.inputsMisrecorded += other.inputsMisrecorded;
    for (const problem of other.problems) this.problem(problem);
  }

  /** The figures, as label and value, indented labels detailing the row above. */
  rows(): Array<[string, string]> {
    const byKind = new Map<string, number>();
    for (const [key, value] of this.faults) {
      const kind = key.split(':')[0] ?? key;
      byKind.set(kind, (byKind.get(kind) ?? 0) + value);
    }
    const totalFaults = [...this.faults.values()].reduce((sum, n) => sum + n, 0);
    return [
      ['schedules (seeded runs)', String(this.runs)],
      ['  delivery schedules on simulated shards', String(this.simulatedSchedules)],
      ['  rolling-deploy schedules (two definitions, parking on)', String(this.rollingSchedules)],
      ['    failed for an event newer code wrote (never parked)', String(this.tooNewFailures)],
      ['events', String(this.events)],
      ['faults injected', String(totalFaults)],
      ...[...byKind.entries()].sort().map(([kind, n]): [string, string] => [`  ${kind}`, String(n)]),
      ...[...this.faults.entries()].sort().map(([key, n]): [string, string] => [`    ${key}`, String(n)]),
      ['bad-input kinds checked', String(this.badInputKinds)],
      ['crashes (SIGKILL restarts)', String(this.crashes)],
      ['lease pauses (SIGSTOP/SIGCONT)', String(this.leasePauses)],
      ['simulated shards (lineage)', String(this.shardsOpened)],
      ['  splits', String(this.shardSplits)],
      ['  rollovers', String(this.shardRollovers)],
      ['feed restarts with lease failover', String(this.feedRestarts)],
      ['leases lapsed (consumer replaced)', String(this.leaseLapses)],
      ['rows checked', String(this.rowsChecked)],
      ['  multi-source rows', String(this.multiSourceRows)],
      ['  removed rows (tombstones)', String(this.removedRows)],
      ['  parked by poison, then replayed', String(this.rowsParked)],
      ['poison events (evolve threw)', String(this.poisonEvents)],
      ['partial fixes (rows still choking stayed parked)', String(this.partialFixes)],
      ['parked events skipped (skipParked)', String(this.skips)],
      ['diverged rows', String(this.divergedRows)],
      ['lost events', String(this.lostEvents)],
      ['double-applied events', String(this.doubleApplied)],
      ['events applied out of version order', String(this.outOfOrder)],
      ['writes whose answer was lost after they were applied', String(this.lostAnswers())],
      ['outbox messages published', String(this.outboxPublished)],
      ['  republished (same id)', String(this.outboxDuplicates)],
      ['  missing (never published or left)', String(this.outboxMissing)],
      ['  out of order per row', String(this.outboxDisorder)],
      ['reactions schedules (a reaction and a workflow with timers)', String(this.reactionSchedules)],
      ['  calls cut short (batch delivered again)', String(this.callsCutShort)],
      ['  effects checked', String(this.effectsChecked)],
      ['    lost', String(this.effectsLost)],
      ['    doubled', String(this.effectsDoubled)],
      ['  timers fired', String(this.timersFired)],
      ['    before they were due', String(this.timersEarly)],
      ['  workflow inputs recorded', String(this.workflowInputs)],
      ['    instances with an input missing or twice', String(this.inputsMisrecorded)],
    ];
  }

  /** The summary as a boxed text table, then the problems found and the result. */
  table(title: string): string {
    const rows = this.rows();
    const width = Math.max(...rows.map(([label]) => label.length));
    const valueWidth = Math.max(...rows.map(([, value]) => value.length));
    const line = `+${'-'.repeat(width + 2)}+${'-'.repeat(valueWidth + 2)}+`;
    const out = [title, line, ...rows.map(([label, value]) => `| ${label.padEnd(width)} | ${value.padStart(valueWidth)} |`), line];
    return [...out, ...this.verdict()].join('\n');
  }

  /** The summary as a Markdown table (indented labels as nested items), then the problems found and the result. */
  markdown(title: string): string {
    const cell = (text: string) => text.replace(/\|/g, '\\|');
    const label = (text: string) => {
      const depth = (text.length - text.trimStart().length) / 2;
      return `${'&nbsp;&nbsp;'.repeat(depth * 2)}${cell(text.trim())}`;
    };
    const out = [
      `**${cell(title)}**`,
      '',
      '| Figure | Count |',
      '| --- | ---: |',
      ...this.rows().map(([name, value]) => `| ${label(name)} | ${value} |`),
      '',
    ];
    return [...out, ...this.verdict()].join('\n');
  }

  private verdict(): string[] {
    const out: string[] = [];
    if (this.problems.length > 0) out.push('problems:', ...this.problems.map((p) => `  - ${p}`));
    out.push(this.ok ? 'RESULT: ok' : 'RESULT: FAILED');
    return out;
  }
}

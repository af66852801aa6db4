import type { Endpoint } from './local';

/** One line of the printed table: a figure of dynafold, of its baseline, their ratio and the target. */
export interface Row {
  readonly scenario: string;
  readonly measure: string;
  readonly dynafold: number | string;
  readonly baseline?: number | string;
  /** What the baseline column holds. */
  readonly against?: string;
  readonly ratio?: number;
  /** The lowest and highest ratio of the rounds whose median `ratio` is, where rounds ran side by side. */
  readonly spread?: readonly [number, number];
  readonly target?: string;
  /** Whether the target is met; `undefined` for figures without one. */
  readonly pass?: boolean;
}

export interface ScenarioContext {
  readonly endpoint: Endpoint;
  readonly quick: boolean;
  log(message: string): void;
}

export interface ScenarioResult {
  readonly rows: Row[];
  readonly notes: string[];
  readonly details: Record<string, unknown>;
}

export interface Scenario {
  readonly name: string;
  readonly title: string;
  run(context: ScenarioContext): Promise<ScenarioResult>;
}

export function fmt(value: number | string | undefined, digits?: number): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return String(value);
  const d = digits ?? (Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);
  return value.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

/** The table, as fixed-width text. */
export function renderTable(rows: ReadonlyArray<Row>): string {
  const header = ['scenario', 'measure', 'dynafold', 'baseline', 'against', 'ratio', 'target', 'result'];
  const cells = rows.map((row) => [
    row.scenario,
    row.measure,
    fmt(row.dynafold),
    fmt(row.baseline),
    row.against ?? '',
    row.ratio === undefined ? '' : `${fmt(row.ratio, 2)}×${row.spread === undefined ? '' : ` (${fmt(row.spread[0], 2)}–${fmt(row.spread[1], 2)})`}`,
    row.target ?? '',
    row.pass === undefined ? '' : row.pass ? 'pass' : 'MISS',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const numeric = new Set([2, 3, 5]);
  const line = (c: string[]) =>
    c
      .map((v, i) => (numeric.has(i) ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join(' │ ')
      .trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('─┼─');
  return [line(header), rule, ...cells.map(line)].join('\n');
}

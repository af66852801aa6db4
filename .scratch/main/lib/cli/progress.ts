import { SingleBar } from 'cli-progress';
import type { CommandContext } from './context';

/** How far a long command is, as its display shows it. */
export interface ProgressReport {
  readonly done: number;
  /** The total, estimated; `undefined` while unknown (no bar and no ETA then). */
  readonly total: number | undefined;
  /** What else is counted (events applied, rows re-derived). */
  readonly counted: number;
  readonly perSecond: number;
  readonly etaMs: number | undefined;
}

export interface ProgressDisplay {
  update(report: ProgressReport): void;
  /** Takes the bar off the terminal: the command's summary line follows. */
  stop(): void;
}

/** Off a terminal (logs, CI), a progress line at most this often, besides the first one. */
export const PROGRESS_LINE_INTERVAL_MS = 10_000;

const BAR_WIDTH = 40;

/**
 * A progress display: a bar on a terminal, erased when the command is done; off a terminal, the first
 * report and then one line every {@link PROGRESS_LINE_INTERVAL_MS}, so a log holds a few lines, not one per
 * instance; nothing in JSON mode. Both show only what is known: no total or ETA before there is an estimate.
 */
export function progressDisplay(context: CommandContext, unit: string, counted: string): ProgressDisplay {
  if (context.out.json) return { update: () => undefined, stop: () => undefined };
  const describe = (report: ProgressReport, separator: string) =>
    [
      `${report.done}${report.total === undefined ? '' : `/${report.total}`} ${unit}`,
      `${report.counted} ${counted}`,
      `${report.perSecond.toFixed(1)}/s`,
      ...(report.etaMs === undefined ? [] : [`ETA ${duration(report.etaMs)}`]),
    ].join(separator);
  if (process.stderr.isTTY !== true) {
    let printedAt: number | undefined;
    return {
      update: (report) => {
        const now = Date.now();
        if (printedAt !== undefined && now - printedAt < PROGRESS_LINE_INTERVAL_MS) return;
        printedAt = now;
        process.stderr.write(`${describe(report, ', ')}\n`);
      },
      stop: () => undefined,
    };
  }
  // The line is ours (cli-progress's own ETA reads "NFs" when it can't tell): cli-progress only redraws it.
  let latest: ProgressReport | undefined;
  const bar = new SingleBar({
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: true,
    format: () => (latest === undefined ? '' : `${barOf(latest)}${describe(latest, ' | ')}`),
  });
  let started = false;
  return {
    update: (report) => {
      latest = report;
      const total = Math.max(report.total ?? report.done, report.done, 1);
      if (!started) bar.start(total, report.done);
      else bar.setTotal(total);
      started = true;
      bar.update(report.done);
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

function barOf(report: ProgressReport): string {
  if (report.total === undefined || report.total === 0) return '';
  const filled = Math.min(BAR_WIDTH, Math.round((report.done / report.total) * BAR_WIDTH));
  return `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)} `;
}

/** `3s`, `2m05s`, `1h02m`. */
export function duration(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

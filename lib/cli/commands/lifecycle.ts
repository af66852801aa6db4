import { SingleBar } from 'cli-progress';
import pLimit from 'p-limit';
import { ConfigurationError } from '../../errors';
import type { BackfillProgress } from '../../projector';
import type { AnyEventStream } from '../../store';
import type { OperableProjection } from '../config';
import type { CommandContext } from '../context';
import { ExitCodes } from '../exit-codes';
import { onInterrupt } from '../interrupt';

/** Options of `backfill` and `rebuild`. */
export interface LifecycleOptions {
  readonly segments?: number;
  readonly concurrency?: number;
  readonly rps?: number;
  readonly restart?: boolean;
  readonly run?: string;
}

/** A progress display: a bar on a terminal, a line per report otherwise (logs, CI), nothing in JSON mode. */
function progressDisplay(context: CommandContext, unit: string, counted: string) {
  if (context.out.json) return { update: () => undefined, stop: () => undefined };
  if (process.stderr.isTTY !== true) {
    return {
      update: (done: number, total: number | undefined, events: number, rate: number) =>
        process.stderr.write(`${done}/${total ?? '?'} ${unit}, ${events} ${counted}, ${rate.toFixed(1)}/s\n`),
      stop: () => undefined,
    };
  }
  const bar = new SingleBar({
    format: `{bar} {value}/{total} ${unit} | {events} ${counted} | {rate}/s | ETA {eta_formatted}`,
    stream: process.stderr,
    hideCursor: true,
  });
  let started = false;
  return {
    update: (done: number, total: number | undefined, events: number, rate: number) => {
      const payload = { events, rate: rate.toFixed(1) };
      if (!started) bar.start(Math.max(total ?? done, done), done, payload);
      else bar.setTotal(Math.max(total ?? done, done));
      started = true;
      bar.update(done, payload);
    },
    stop: () => bar.stop(),
  };
}

/** Runs `work` with an AbortSignal that Ctrl-C (SIGINT) aborts; resolves what it resolves, or `interrupted`. */
async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<{ value: T } | { interrupted: true }> {
  const controller = new AbortController();
  onInterrupt(() => controller.abort(new Error('interrupted')));
  try {
    return { value: await work(controller.signal) };
  } catch (error) {
    if (controller.signal.aborted) return { interrupted: true };
    throw error;
  }
}

/** `dynafold backfill <projection>`: brings every row up to date over the whole history, resumably. */
export async function backfillCommand(context: CommandContext, name: string, options: LifecycleOptions): Promise<number> {
  const projection = context.projection(name);
  const display = progressDisplay(context, 'instances', 'events');
  const report = (p: BackfillProgress) => display.update(p.instancesDone, p.instancesEstimate, p.eventsApplied, p.instancesPerSecond);
  const outcome = await interruptible((signal) =>
    projection.backfill({
      signal,
      onProgress: report,
      ...(options.segments === undefined ? {} : { segments: options.segments }),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.rps === undefined ? {} : { throttle: { requestsPerSecond: options.rps } }),
      ...(options.run === undefined ? {} : { run: options.run }),
      ...(options.restart === true ? { restart: true } : {}),
    }),
  );
  display.stop();
  if ('interrupted' in outcome) {
    context.out.data({ projection: name, interrupted: true }, () =>
      context.out.line(`Interrupted: the progress of backfill ${name} is saved. Run the same command to resume.`),
    );
    return ExitCodes.interrupted;
  }
  const p = outcome.value;
  context.out.data({ projection: name, ...p }, () =>
    context.out.ok(
      `backfill ${name}: ${p.instancesDone} instances${p.resumed ? ' (resumed)' : ''}, ${p.eventsApplied} events applied, ${p.rowsWritten} rows written, ${p.rowsParked} parked`,
    ),
  );
  return ExitCodes.ok;
}

/**
 * `dynafold rebuild <projection>`: re-derives every row of a single-source projection from its events
 * (`rebuild` per stream instance, listed by a parallel Scan). Rows move no checkpoint and no outbox
 * message is written; interrupted, it can simply run again.
 */
export async function rebuildCommand(context: CommandContext, name: string, options: LifecycleOptions): Promise<number> {
  // A single-source Projection is the one with a `stream` (a MultiSourceProjection has sources); told
  // apart by shape, as the config may load its own copy of the classes.
  const projection = context.projection(name) as OperableProjection & {
    readonly stream?: AnyEventStream;
    rebuild?: (streamId: string) => Promise<{ rows: ReadonlyArray<unknown> }>;
  };
  const { stream, rebuild } = projection;
  if (stream === undefined || rebuild === undefined) {
    throw new ConfigurationError(
      `rebuild ${name}: only a single-source Projection can be rebuilt in place. For a multi-source projection, backfill a new version beside it (blue/green, see the README).`,
    );
  }
  const display = progressDisplay(context, 'instances', 'rows');
  const started = Date.now();
  let instances = 0;
  let rows = 0;
  const limit = pLimit(options.concurrency ?? 16);
  const outcome = await interruptible(async (signal) => {
    const pending: Promise<void>[] = [];
    for await (const id of stream.instances({ ...(options.segments === undefined ? {} : { segments: options.segments }), signal })) {
      pending.push(
        limit(async () => {
          if (signal.aborted) return;
          // Awaited first: `rows += await …` would read `rows` before the await and lose concurrent counts.
          const rebuilt = await rebuild.call(projection, id);
          rows += rebuilt.rows.length;
          instances++;
          display.update(instances, undefined, rows, instances / Math.max(0.001, (Date.now() - started) / 1000));
        }),
      );
    }
    await Promise.all(pending);
    if (signal.aborted) throw signal.reason;
  });
  display.stop();
  if ('interrupted' in outcome) {
    context.out.data({ projection: name, interrupted: true, instances, rows }, () =>
      context.out.line(`Interrupted after ${instances} instances: rebuilt rows stay rebuilt. Run the command again to rebuild every row.`),
    );
    return ExitCodes.interrupted;
  }
  context.out.data({ projection: name, instances, rows }, () => context.out.ok(`rebuild ${name}: ${instances} instances, ${rows} rows re-derived`));
  return ExitCodes.ok;
}

import { ConfigurationError } from '../../errors';
import type { BackfillProgress } from '../../projector';
import type { AnyEventStream } from '../../store';
import { Semaphore } from '../../util';
import type { OperableProjection } from '../config';
import type { CommandContext } from '../context';
import { ExitCodes } from '../exit-codes';
import { onInterrupt } from '../interrupt';
import { progressDisplay } from '../progress';
import { throttleClient } from '../throttle';

/** Options of `backfill` and `rebuild`. */
export interface LifecycleOptions {
  readonly segments?: number;
  readonly concurrency?: number;
  readonly rps?: number;
  readonly restart?: boolean;
  readonly run?: string;
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
  const report = (p: BackfillProgress) =>
    display.update({ done: p.instancesDone, total: p.instancesEstimate, counted: p.eventsApplied, perSecond: p.instancesPerSecond, etaMs: p.etaMs });
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

/** A stream id as the command line gives it: JSON (`'{"orderId":"o-1"}'`), or the id's text as stored (`o-1`). */
function streamIdArgument(text: string): Readonly<Record<string, string>> | string {
  if (!text.trimStart().startsWith('{')) return text;
  try {
    return JSON.parse(text) as Readonly<Record<string, string>>;
  } catch {
    throw new ConfigurationError(`Expected the stream id as JSON ('{"orderId":"o-1"}') or as text (o-1), got ${text}.`);
  }
}

/**
 * `dynafold rebuild <projection> [streamId]`: re-derives every row of a single-source projection from its
 * events (`rebuild` per stream instance, listed by a parallel Scan), or only the rows of one stream
 * instance (after a data subject is forgotten, say). Rows move no checkpoint and no outbox message is
 * written; interrupted, it can simply run again.
 */
export async function rebuildCommand(
  context: CommandContext,
  name: string,
  streamId: string | undefined,
  options: LifecycleOptions,
): Promise<number> {
  // A single-source Projection is the one with a `stream` (a MultiSourceProjection has sources); told
  // apart by shape, as the config may load its own copy of the classes.
  const projection = context.projection(name) as OperableProjection & {
    readonly stream?: AnyEventStream;
    rebuild?: (streamId: string, options: { signal: AbortSignal }) => Promise<{ rows: ReadonlyArray<unknown> }>;
  };
  const { stream, rebuild } = projection;
  if (stream === undefined || rebuild === undefined) {
    throw new ConfigurationError(
      `rebuild ${name}: only a single-source Projection can be rebuilt in place. For a multi-source projection, backfill a new version beside it (blue/green, see the README).`,
    );
  }
  if (streamId !== undefined) {
    const id = streamIdArgument(streamId);
    const outcome = await interruptible((signal) => rebuild.call(projection, id as string, { signal }));
    if ('interrupted' in outcome) return ExitCodes.interrupted;
    const rows = outcome.value.rows.length;
    const shown = typeof id === 'string' ? id : JSON.stringify(id);
    context.out.data({ projection: name, streamId: id, instances: 1, rows }, () =>
      context.out.ok(`rebuild ${name} ${shown}: ${rows} ${rows === 1 ? 'row' : 'rows'} re-derived`),
    );
    return ExitCodes.ok;
  }
  const display = progressDisplay(context, 'instances', 'rows');
  const started = Date.now();
  let instances = 0;
  let rows = 0;
  const limit = new Semaphore(options.concurrency ?? 16);
  const outcome = await interruptible(async (signal) => {
    // The first failure stops the listing and every instance not yet started; it is what the command reports.
    const failed = new AbortController();
    const stopped = AbortSignal.any([signal, failed.signal]);
    const unthrottle = options.rps === undefined ? () => undefined : throttleClient(context.client, options.rps, stopped);
    const rebuildOne = async (id: string) => {
      if (stopped.aborted) return;
      try {
        // Awaited first: `rows += await …` would read `rows` before the await and lose concurrent counts.
        const rebuilt = await rebuild.call(projection, id, { signal: stopped });
        rows += rebuilt.rows.length;
        instances++;
        display.update({
          done: instances,
          total: undefined,
          counted: rows,
          perSecond: instances / Math.max(0.001, (Date.now() - started) / 1000),
          etaMs: undefined,
        });
      } catch (error) {
        if (!stopped.aborted) failed.abort(error);
      }
    };
    const pending: Promise<void>[] = [];
    try {
      for await (const id of stream.instances({ ...(options.segments === undefined ? {} : { segments: options.segments }), signal: stopped })) {
        pending.push(limit.use(() => rebuildOne(id)));
      }
    } catch (error) {
      if (!stopped.aborted) throw error;
    } finally {
      await Promise.all(pending);
      unthrottle();
    }
    if (signal.aborted) throw signal.reason;
    if (failed.signal.aborted) throw failed.signal.reason;
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

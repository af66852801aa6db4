import { setMaxListeners } from 'node:events';
import { ConfigurationError } from '../../errors';
import { commitsOf, type AnyEventStream, type InstancePage } from '../../store';
import { RequestRate, Semaphore } from '../../util';
import { SharedRowReads, type RowBasics } from '../engine';
import type { ProjectionRuntime } from '../runtime';
import { backfillInstance, type InstanceRun, type Tally } from './instance';
import { BackfillProgressStore, type SegmentProgress } from './progress';
import { resolveBackfillOptions, type BackfillOptions, type BackfillProgress, type BackfillSettings } from './options';
import { Attr, countBackfill, inSpan, projectionSpan } from '../../telemetry';

/** The streams of a projection that share one events table: one scan lists the instances of them all. */
interface TableScan {
  readonly table: string;
  readonly streams: ReadonlyArray<AnyEventStream>;
}

/**
 * Brings every row of a projection up to date over the whole history: a parallel Scan lists the stream
 * instances of each events table, and each instance's events go through the row engine (no outbox
 * messages). Progress is saved per segment after each page; a killed backfill resumes from there, and
 * the instances of the page it was in are applied again, which the rows' checkpoints make harmless.
 */
export async function backfillRows<State>(runtime: ProjectionRuntime<State>, options: BackfillOptions): Promise<BackfillProgress> {
  return inSpan(projectionSpan('backfill', runtime.name), () => backfillAll(runtime, options));
}

async function backfillAll<State>(runtime: ProjectionRuntime<State>, options: BackfillOptions): Promise<BackfillProgress> {
  const settings = resolveBackfillOptions(runtime.name, options);
  // Aborted already: no request starts, and nothing is saved that a later run would take for progress.
  settings.signal?.throwIfAborted();
  const rate = settings.requestsPerSecond === undefined ? undefined : new RequestRate(settings.requestsPerSecond);
  const limit = new Semaphore(settings.concurrency);
  // The first failure stops every segment; the in-flight instances finish and their page is not saved.
  const stop = new AbortController();
  const signal = settings.signal === undefined ? stop.signal : AbortSignal.any([settings.signal, stop.signal]);
  const progress = new BackfillProgressStore(runtime.store, runtime.name, settings.run, async () => {
    // No request of the backfill's own starts once it is stopped (by the caller or by a failure).
    signal.throwIfAborted();
    await rate?.take(1, signal);
  });
  const tables = tablesOf(runtime);
  const started = Date.now();
  const tally: Tally = {
    instances: 0,
    events: 0,
    rowsWritten: 0,
    rowsParked: 0,
    resumedInstances: 0,
    resumed: false,
    segmentsDone: 0,
    scans: new Map(),
  };
  // Every instance in flight listens to it (its requests and backoff sleeps): not a leak past 10 listeners.
  setMaxListeners(Math.max(10, settings.concurrency * 4 + settings.segments * tables.length), signal);
  const segments = tables.flatMap((scan) => Array.from({ length: settings.segments }, (_unused, segment) => ({ scan, segment })));
  // A restart forgets every saved segment first (of any count), so that no old cursor mixes with the new ones.
  if (settings.restart) await Promise.all(tables.map((scan) => progress.forget(scan.table, settings.segments)));
  if (!settings.restart) await Promise.all(tables.map((scan) => forgetIfNothingDone(runtime, settings, progress, scan)));
  const saved = await Promise.all(segments.map(({ scan, segment }) => (settings.restart ? undefined : progress.load(scan.table, segment))));
  for (const [index, resumed] of saved.entries()) {
    const { scan } = segments[index] as { scan: TableScan };
    const counts = tally.scans.get(scan.table) ?? { found: 0, scanned: 0, itemCount: undefined };
    tally.scans.set(scan.table, { ...counts, found: counts.found + (resumed?.instances ?? 0), scanned: counts.scanned + (resumed?.scanned ?? 0) });
    tally.resumedInstances += resumed?.instances ?? 0;
    if (resumed !== undefined && didWork(resumed)) tally.resumed = true;
    if (resumed?.done === true) tally.segmentsDone++;
  }
  // Segment 0 is saved before any other segment can save: it names the run's segment count, so that a
  // later run (refused with another count) and `forget` find every segment, also when segment 0 had not
  // finished a page when the run was cut short.
  await Promise.all(
    segments.map(({ scan, segment }, index) =>
      segment === 0 && saved[index] === undefined ? progress.save(scan.table, 0, { ...NOTHING_YET, segments: settings.segments }) : undefined,
    ),
  );
  for (const scan of tables) {
    await rate?.take(1, signal);
    (tally.scans.get(scan.table) as { itemCount: number | undefined }).itemCount = await itemCount(scan);
  }
  const report = reporter(settings, tally, segments.length, started);
  const rowReads = new SharedRowReads(runtime.store, signal);
  const outcomes = await Promise.allSettled(
    segments.map(async ({ scan, segment }, index) => {
      try {
        // A span per segment; its rows get none (`bulk`): a backfill writes far too many.
        const attributes = { [Attr.segment]: segment, [Attr.dbCollection]: scan.table };
        await inSpan(projectionSpan('backfill', runtime.name, attributes, true), () =>
          backfillSegment(runtime, settings, { scan, segment, resumed: saved[index], progress, tally, rate, limit, signal, report, rowReads }),
        );
      } catch (error) {
        stop.abort(error);
        throw error;
      }
    }),
  );
  // Every segment has settled (their in-flight instances finished): the first failure is the one to report.
  if (outcomes.some((outcome) => outcome.status === 'rejected'))
    throw settings.signal?.aborted === true ? settings.signal.reason : stop.signal.reason;
  await Promise.all(tables.map((scan) => progress.forget(scan.table, settings.segments)));
  return report(true);
}

/**
 * The saved progress of an earlier run of the table, when it was saved with another segment count: forgotten
 * when none of its segments finished a page (a run stopped before any work, which left segment 0 naming its
 * count), so the new run starts afresh; otherwise refused with a `ConfigurationError`, as resuming it with
 * another count would scan some items twice and miss others.
 */
async function forgetIfNothingDone(runtime: RowBasics, settings: BackfillSettings, progress: BackfillProgressStore, scan: TableScan): Promise<void> {
  const first = await progress.load(scan.table, 0);
  if (first === undefined || first.segments === settings.segments) return;
  const others = await Promise.all(Array.from({ length: first.segments - 1 }, (_unused, index) => progress.load(scan.table, index + 1)));
  if (didWork(first) || others.some((segment) => segment !== undefined && didWork(segment))) {
    throw new ConfigurationError(
      `A backfill of ${runtime.name} (run '${settings.run}') was saved with ${first.segments} segments: resume it with segments: ${first.segments}, or pass restart: true.`,
    );
  }
  await progress.forget(scan.table, first.segments);
}

/** Whether a segment's saved progress records work: a page finished (items scanned, or the segment done). */
function didWork(progress: SegmentProgress): boolean {
  return progress.done || progress.scanned > 0 || progress.instances > 0;
}

/** The progress of a segment that has not finished a page yet. */
const NOTHING_YET: Omit<SegmentProgress, 'segments'> = { next: undefined, done: false, instances: 0, scanned: 0 };

/** The projection's streams grouped by events table. */
function tablesOf(runtime: RowBasics): TableScan[] {
  const byTable = new Map<string, AnyEventStream[]>();
  for (const stream of runtime.streams.values()) byTable.set(stream.table, [...(byTable.get(stream.table) ?? []), stream]);
  return [...byTable].map(([table, streams]) => ({ table, streams }));
}

/** DynamoDB's item count of the table (AWS refreshes it about every six hours): for the estimate only. */
async function itemCount(scan: TableScan): Promise<number | undefined> {
  try {
    return await commitsOf(scan.streams[0] as AnyEventStream).itemCount();
  } catch {
    // Without the permission there is just no estimate.
    return undefined;
  }
}

interface SegmentRun extends InstanceRun {
  readonly scan: TableScan;
  readonly segment: number;
  readonly resumed: SegmentProgress | undefined;
  readonly progress: BackfillProgressStore;
  readonly limit: Semaphore;
  readonly report: (final: boolean) => BackfillProgress;
}

async function backfillSegment<State>(runtime: ProjectionRuntime<State>, settings: BackfillSettings, run: SegmentRun): Promise<void> {
  const { scan, segment, resumed, tally } = run;
  if (resumed?.done === true) return;
  // The commit layer of the table's first stream scans for every stream of the table.
  const pages = commitsOf(scan.streams[0] as AnyEventStream).instancePages({
    streamNames: scan.streams.map((stream) => stream.name),
    segment,
    segments: settings.segments,
    startKey: resumed?.next,
    pageSize: settings.pageSize,
    signal: run.signal,
  });
  let saved: SegmentProgress = resumed ?? { ...NOTHING_YET, segments: settings.segments };
  const counts = tally.scans.get(scan.table) as { found: number; scanned: number };
  for (let page = await nextPage(pages, run); page !== undefined; page = await nextPage(pages, run)) {
    counts.found += page.instances.length;
    counts.scanned += page.scanned;
    // Settled, not raced: when one instance fails, the others of the page still finish before the backfill stops.
    const applied = await Promise.allSettled(
      page.instances.map((instance) =>
        run.limit.use(async () => {
          run.signal.throwIfAborted();
          await backfillInstance(runtime, settings, instance, run);
          tally.instances++;
        }),
      ),
    );
    countBackfill(runtime.name, applied.filter((result) => result.status === 'fulfilled').length, 0);
    const failure = applied.find((result) => result.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    saved = {
      segments: settings.segments,
      next: page.next,
      done: page.next === undefined,
      instances: saved.instances + page.instances.length,
      scanned: saved.scanned + page.scanned,
    };
    await run.progress.save(scan.table, segment, saved);
    if (saved.done) tally.segmentsDone++;
    run.report(false);
  }
}

async function nextPage(pages: AsyncGenerator<InstancePage>, run: SegmentRun): Promise<InstancePage | undefined> {
  await run.rate?.take(1, run.signal);
  const { done, value } = await pages.next();
  return done === true ? undefined : value;
}

/** Reports progress through `onProgress`, at most once per interval except the final report. */
function reporter(settings: BackfillSettings, tally: Tally, segments: number, started: number): (final: boolean) => BackfillProgress {
  let reportedAt = 0;
  return (final) => {
    const now = Date.now();
    const elapsedMs = now - started;
    const perSecond = elapsedMs > 0 ? (tally.instances / elapsedMs) * 1000 : 0;
    const done = tally.resumedInstances + tally.instances;
    const estimate = final ? done : estimateTotal(tally, done);
    const progress: BackfillProgress = {
      instancesDone: done,
      instancesEstimate: estimate,
      eventsApplied: tally.events,
      rowsWritten: tally.rowsWritten,
      rowsParked: tally.rowsParked,
      segmentsDone: final ? segments : tally.segmentsDone,
      segments,
      elapsedMs,
      instancesPerSecond: perSecond,
      etaMs: final ? 0 : estimate === undefined || perSecond === 0 ? undefined : (Math.max(0, estimate - done) / perSecond) * 1000,
      resumed: tally.resumed,
      done: final,
    };
    if (settings.onProgress !== undefined && (final || now - reportedAt >= settings.progressIntervalMs)) {
      reportedAt = now;
      settings.onProgress(progress);
    }
    return progress;
  };
}

/** Instances found so far, scaled by the share of each table's items scanned so far. */
function estimateTotal(tally: Tally, done: number): number | undefined {
  let total = 0;
  for (const { found, scanned, itemCount } of tally.scans.values()) {
    if (itemCount === undefined || scanned === 0) return undefined;
    total += Math.round(found * Math.max(1, itemCount / scanned));
  }
  return Math.max(total, done);
}

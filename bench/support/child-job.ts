/**
 * The child side of {@link runInChild}: reads the job from its environment variable, runs it while
 * watching memory, and prints the result as the last line of stdout (or the error on stderr, exit 1).
 */

/** What a child's memory reached while its job ran. */
export interface MemoryFigures {
  readonly peakRssMb: number;
  /**
   * The largest heap in use right after a full collection, sampled every 250 ms when asked for (the
   * collections cost time, so jobs timed against each other sample alike): what the job retained.
   */
  readonly peakLiveHeapMb: number;
  /** The heap still in use after a full collection at the end. */
  readonly heapAfterGcMb: number;
}

/** What every bench job reports: its mode, how long it took, the requests it sent and its memory. */
export interface JobResult extends MemoryFigures {
  readonly mode: string;
  readonly ms: number;
  readonly requests: Record<string, number>;
}

const MB = 2 ** 20;

/** Samples RSS every 20 ms and, if asked, the live heap every 250 ms (`runInChild` passes `--expose-gc`). */
function watchMemory(sampleLiveHeap: boolean): () => MemoryFigures {
  const gc = (globalThis as { gc?: () => void }).gc;
  const live = () => {
    gc?.();
    return process.memoryUsage().heapUsed;
  };
  let peakRss = process.memoryUsage().rss;
  let peakLive = 0;
  const rssSampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const liveSampler = sampleLiveHeap ? setInterval(() => (peakLive = Math.max(peakLive, live())), 250) : undefined;
  return () => {
    clearInterval(rssSampler);
    clearInterval(liveSampler);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    const atEnd = live();
    return { peakRssMb: peakRss / MB, peakLiveHeapMb: Math.max(peakLive, atEnd) / MB, heapAfterGcMb: atEnd / MB };
  };
}

/** Runs `job` from the JSON in `variable` and prints its result merged with the memory figures. */
export function childJob<Job, Result>(variable: string, job: (input: Job) => Promise<Result>, options: { sampleLiveHeap: boolean }): void {
  const input = JSON.parse(process.env[variable] ?? '{}') as Job;
  const stop = watchMemory(options.sampleLiveHeap);
  job(input).then(
    (result) => process.stdout.write(`${JSON.stringify({ ...result, ...stop() })}\n`),
    (error: unknown) => {
      process.stderr.write(`${variable} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}

import { guarded, guardedAsync } from './guard';
import { otel } from './otel-api';

/** A provider of the app's SDK that can send what it holds (the SDK's tracer and meter providers can). */
interface Flushable {
  forceFlush(): Promise<void>;
}

const flushable = (provider: unknown): provider is Flushable => typeof (provider as Partial<Flushable> | undefined)?.forceFlush === 'function';

/**
 * Sends what the app's SDK holds: `forceFlush` on the registered tracer provider (behind the API's proxy)
 * and meter provider, so that a Lambda function, frozen once it answers, loses none of an invocation's
 * spans and measurements. Waits `withinMs` at most (the export goes on, unwaited, after that) and never
 * rejects: what the SDK throws is told once, as for every call into it. Nothing to do without an SDK.
 */
export async function flushRecorded(withinMs: number): Promise<void> {
  const api = otel();
  if (api === undefined) return;
  const providers = guarded('flush what was recorded', [], () => {
    const tracing = api.trace.getTracerProvider() as { getDelegate?: () => unknown };
    return [typeof tracing.getDelegate === 'function' ? tracing.getDelegate() : tracing, api.metrics.getMeterProvider()].filter(flushable);
  });
  if (providers.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)));
  try {
    await Promise.race([
      Promise.all(providers.map((provider) => guardedAsync('flush what was recorded', undefined, () => provider.forceFlush()))),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

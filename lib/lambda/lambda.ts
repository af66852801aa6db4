import { ValidationError } from '../errors';
import { requireInteger } from '../util';
import { LambdaHandlerDefaults } from './defaults';
import type { AnyEventStream } from '../store';
import type { PartialBatchResponse } from './batch-response';
import type { LambdaKinesisEvent, LambdaKinesisRecord, LambdaStreamEvent, LambdaStreamRecord } from './lambda-event';
import { answerAfter, processBatch, type OnBatch, type ProcessBatchOptions } from './process-batch';
import type { RecordSource } from './records';
import type { ProjectionSet } from '../outcome';
import { flushRecorded, inProcessSpan } from '../telemetry';
import { batchSpan } from './batch-telemetry';

/** Options of a Lambda handler over records of type `R` in events of type `E`. */
export interface LambdaHandlerOptions<
  P extends ProjectionSet,
  St extends Record<string, AnyEventStream>,
  R = LambdaStreamRecord,
  E = LambdaStreamEvent,
> extends Omit<ProcessBatchOptions<P, St, R>, 'source' | 'image' | 'identifier' | 'signal'> {
  /** Runs after the batch is applied and before the response is returned (see {@link OnBatch}); `input` is the Lambda event. */
  readonly onBatch?: OnBatch<P, St, R, E> | undefined;
  /**
   * Time kept in reserve before the invocation's timeout (read from the context's
   * `getRemainingTimeInMillis`): once only this much is left, no new row starts, requests in flight are
   * cut short, and the rows not done are reported as failed, so a timeout never loses track of what was
   * applied. Keep `onBatch` within it.
   * @defaultValue 1000 ({@link LambdaHandlerDefaults.timeReserveMs})
   */
  readonly timeReserveMs?: number | undefined;
  /**
   * Send the spans and measurements the invocation recorded before it answers: `forceFlush` on the app's
   * OpenTelemetry tracer and meter providers, within `timeReserveMs` (Lambda freezes the function once it
   * has answered, with whatever the SDK still buffers). Nothing to send without an SDK registered.
   * @defaultValue true ({@link LambdaHandlerDefaults.flushTelemetry})
   */
  readonly flushTelemetry?: boolean | undefined;
}

/** What the handler reads of Lambda's context object (assignable from `aws-lambda`'s `Context`). */
export interface LambdaContextLike {
  getRemainingTimeInMillis(): number;
}

/** One handler for every source: it differs only in how records are read and identified. */
function handlerOf<P extends ProjectionSet, St extends Record<string, AnyEventStream>, R, E extends { Records: R[] }>(
  source: RecordSource,
  what: string,
  options: LambdaHandlerOptions<P, St, R, E>,
): (event: E, context?: LambdaContextLike) => Promise<PartialBatchResponse> {
  const { onBatch, timeReserveMs, flushTelemetry, ...processOptions } = options;
  const reserveMs = requireInteger('timeReserveMs', timeReserveMs ?? LambdaHandlerDefaults.timeReserveMs, 0, undefined, 'lambdaHandler');
  return async (event, context) => {
    const records = (event as { Records?: unknown } | undefined)?.Records;
    if (!Array.isArray(records)) throw new ValidationError(`The Lambda event has no Records array: is this a ${what} event?`);
    // The invocation's span covers the batch and `onBatch`; processBatch takes it as its own.
    try {
      return await inProcessSpan(batchSpan(source, options.projections, options.streams, records.length), async () => {
        const deadline = deadlineOf(context, reserveMs);
        try {
          const result = await processBatch(records as R[], { ...processOptions, source, signal: deadline?.signal });
          return await answerAfter(records as R[], result, { source }, onBatch, event);
        } finally {
          deadline?.clear();
        }
      });
    } finally {
      // After the invocation's span has ended, so that it goes too.
      if (flushTelemetry ?? LambdaHandlerDefaults.flushTelemetry) await flushRecorded(reserveMs);
    }
  };
}

/** A signal that aborts `reserveMs` before the invocation times out; none without a context to ask. */
function deadlineOf(context: LambdaContextLike | undefined, reserveMs: number): { signal: AbortSignal; clear(): void } | undefined {
  const remaining = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
  if (remaining === undefined || !Number.isFinite(remaining)) return undefined;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The invocation is about to time out', 'TimeoutError')),
    Math.max(0, remaining - reserveMs),
  );
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/**
 * A Lambda handler for a DynamoDB Streams event source mapping with ReportBatchItemFailures enabled.
 *
 * @example
 * ```ts
 * export const handler = lambdaHandler({ projections: [summaries], onBatch: async (result) => { ... } })
 * ```
 */
export function lambdaHandler<P extends ProjectionSet, St extends Record<string, AnyEventStream> = Record<string, never>>(
  options: LambdaHandlerOptions<P, St>,
): (event: LambdaStreamEvent, context?: LambdaContextLike) => Promise<PartialBatchResponse> {
  return handlerOf('lambda', 'DynamoDB Streams', options);
}

/**
 * A Lambda handler for a Kinesis Data Streams event source mapping (ReportBatchItemFailures enabled) of a
 * table that streams its changes to Kinesis Data Streams. Each record's `kinesis.data` is decoded into
 * its DynamoDB change record; failures are reported by `kinesis.sequenceNumber`. Kinesis may deliver a
 * change more than once and out of order, which the projections' checkpoints absorb as they do for
 * DynamoDB Streams.
 *
 * @example
 * ```ts
 * export const handler = kinesisHandler({ projections: [summaries] })
 * ```
 */
export function kinesisHandler<P extends ProjectionSet, St extends Record<string, AnyEventStream> = Record<string, never>>(
  options: LambdaHandlerOptions<P, St, LambdaKinesisRecord, LambdaKinesisEvent>,
): (event: LambdaKinesisEvent, context?: LambdaContextLike) => Promise<PartialBatchResponse> {
  return handlerOf('kinesis', 'Kinesis Data Streams', options);
}

import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { ValidationError } from '../errors';
import type { AnyEventStream } from '../store';
import { batchResponse } from './batch-response';
import { processBatch, type ProcessBatchOptions, type ProcessResult } from './process-batch';
import type { AnyProjection } from './projection';

/** Options of {@link lambdaHandler}. */
export interface LambdaHandlerOptions<P extends Record<string, AnyProjection>, St extends Record<string, AnyEventStream>>
  extends Omit<ProcessBatchOptions<P, St, DynamoDBRecord>, 'source' | 'image' | 'identifier'> {
  /**
   * Runs after the batch is applied and before the response is returned: act on `applied` or `unrouted`
   * events here. Push positions to `result.failedRecords` to fail more records; a throw fails the invocation
   * (the whole batch is redelivered, and the projections' checkpoints skip what was applied).
   */
  readonly onBatch?: (result: ProcessResult<P, St, DynamoDBRecord>, event: DynamoDBStreamEvent) => void | Promise<void>;
}

/**
 * A Lambda handler for a DynamoDB Streams event source mapping with ReportBatchItemFailures enabled.
 *
 * @example
 * ```ts
 * export const handler = lambdaHandler({ projections: { summaries }, onBatch: async (result) => { ... } })
 * ```
 */
export function lambdaHandler<P extends Record<string, AnyProjection>, St extends Record<string, AnyEventStream> = Record<string, never>>(
  options: LambdaHandlerOptions<P, St>,
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  const { onBatch, ...processOptions } = options;
  return async (event) => {
    const records = (event as { Records?: unknown } | undefined)?.Records;
    if (!Array.isArray(records)) throw new ValidationError('The Lambda event has no Records array: is this a DynamoDB Streams event?');
    const result = await processBatch(records as DynamoDBRecord[], { ...processOptions, source: 'lambda' });
    if (onBatch === undefined) return result.response;
    const reported = result.failedRecords.length;
    await onBatch(result, event);
    return result.failedRecords.length === reported ? result.response : batchResponse(records as DynamoDBRecord[], result.failedRecords, { source: 'lambda' });
  };
}

import { StreamRecordIdentifierMissingError } from '../errors';
import { identifierReader, type RecordReading } from './records';

/** A partial batch response, exactly as Lambda and EventBridge Pipes define it. */
export interface PartialBatchResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/**
 * The one builder of partial batch responses, for Lambda, Pipes and the change feed alike. Failed
 * records are named by position; the response lists their identifiers in record order. A failed record
 * without an identifier is an error: an empty identifier would make the source fail the whole batch
 * silently.
 *
 * @example
 * ```ts
 * const response = new BatchResponse(event.Records, { source: 'lambda' }).fail(3).build()
 * ```
 */
export class BatchResponse<R = unknown> {
  private readonly failed = new Set<number>();
  private readonly identify: (record: R) => string | undefined;

  constructor(
    private readonly records: ReadonlyArray<R>,
    private readonly reading: RecordReading<R> = {},
  ) {
    this.identify = identifierReader(reading);
  }

  /** Marks the record at `position` as failed. */
  fail(position: number): this {
    if (!Number.isInteger(position) || position < 0 || position >= this.records.length) {
      throw new RangeError(`No record at position ${position} (the batch has ${this.records.length}).`);
    }
    this.failed.add(position);
    return this;
  }

  /** Failed positions, in record order. */
  get failedPositions(): number[] {
    return [...this.failed].sort((a, b) => a - b);
  }

  /** The response: the failed records' identifiers in record order. */
  build(): PartialBatchResponse {
    return {
      batchItemFailures: this.failedPositions.map((position) => {
        const identifier = this.identify(this.records[position] as R);
        if (typeof identifier !== 'string' || identifier === '') {
          throw new StreamRecordIdentifierMissingError(
            position,
            this.reading.identifier === undefined ? (this.reading.source ?? 'lambda') : 'custom',
          );
        }
        return { itemIdentifier: identifier };
      }),
    };
  }
}

/** The response failing these positions of `records`: a shorthand for {@link BatchResponse}. */
export function batchResponse<R>(records: ReadonlyArray<R>, failedPositions: Iterable<number>, reading: RecordReading<R> = {}): PartialBatchResponse {
  const response = new BatchResponse(records, reading);
  for (const position of failedPositions) response.fail(position);
  return response.build();
}

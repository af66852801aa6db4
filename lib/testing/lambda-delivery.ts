import type { LambdaStreamEvent, LambdaStreamRecord, PartialBatchResponse, ProcessResult } from '../lambda';
import type { AnyProjection } from '../outcome';
import type { StreamEvent } from '../store';
import { SpecAssertionError } from './assertion';

/** What the deliveries of a projection spec saw, summed over every call of the handler. */
export interface DeliveryLedger {
  /** Times each event (by id) was in a call's `applied`. */
  readonly applied: Map<string, number>;
  alreadyApplied: number;
  /** Events skipped, rejected, parked or addressing no row: applied never, and rightly so. */
  readonly setAside: Set<string>;
  batches: number;
  retries: number;
}

/** A call's result: of the spec's one projection, under its name. */
type SpecResult = ProcessResult<ReadonlyArray<AnyProjection>, Record<string, never>, LambdaStreamRecord>;
type Handler = (event: LambdaStreamEvent) => Promise<PartialBatchResponse>;
/** The `onBatch` hook through which a Lambda handler hands each call's outcomes to the delivery. */
export type OnSpecBatch = (result: SpecResult, event: LambdaStreamEvent) => void;

/** An event's identity across streams: `<stream>#<id>@<version>`. */
export function eventId(event: { readonly streamName: string; readonly streamId: string; readonly version: number }): string {
  return `${event.streamName}#${event.streamId}@${event.version}`;
}

/**
 * Runs a delivery plan: lanes at once, each lane's batches in turn, each batch delivered again from the
 * first record its answer reports (Lambda's checkpoint with ReportBatchItemFailures) until it passes.
 * `handle` must call `record(event, result)` from its `onBatch`, which is how each call's outcomes are
 * told apart when lanes run at once.
 */
export async function deliverLanes(
  plan: ReadonlyArray<ReadonlyArray<ReadonlyArray<number>>>,
  records: ReadonlyArray<LambdaStreamRecord>,
  handler: (onBatch: OnSpecBatch) => Handler,
  ledger: DeliveryLedger,
  limits: { readonly maxTries: number; readonly header: string; readonly seed: number },
): Promise<void> {
  const results = new Map<LambdaStreamEvent, SpecResult>();
  const handle = handler((result, event) => void results.set(event, result));
  await Promise.all(
    plan.map(async (batches) => {
      for (const batch of batches) {
        let positions = batch;
        for (let tries = 1; ; tries++) {
          const event: LambdaStreamEvent = { Records: positions.map((position) => records[position] as LambdaStreamRecord) };
          ledger.batches++;
          const response = await handle(event);
          const result = results.get(event);
          results.delete(event);
          if (result !== undefined) count(result, ledger);
          const first = response.batchItemFailures[0];
          if (first === undefined) break;
          if (tries >= limits.maxTries) {
            const errors = Object.values(result?.outcomes ?? {})
              .flat()
              .flatMap((outcome) => (outcome.status === 'failed' ? [String(outcome.error)] : []));
            throw new SpecAssertionError(
              `${limits.header}\na batch still failed after ${tries} deliveries: ${errors.join('; ') || JSON.stringify(response)}`,
              {
                seed: limits.seed,
              },
            );
          }
          ledger.retries++;
          const from = event.Records.findIndex((record) => record.dynamodb?.SequenceNumber === first.itemIdentifier);
          positions = positions.slice(Math.max(0, from));
        }
      }
    }),
  );
}

/**
 * Adds a call's outcomes to the ledger, event by event as the projector reports them: a record is an
 * append's commit, whose events may go different ways (one applied, another ignored or set aside by a
 * parked row), so none is excused for another's sake.
 */
function count(result: SpecResult, ledger: DeliveryLedger): void {
  const setAside: StreamEvent[] = Object.values(result.ignoredEvents).flat();
  for (const outcome of Object.values(result.outcomes).flat()) {
    for (const event of outcome.applied) ledger.applied.set(eventId(event), (ledger.applied.get(eventId(event)) ?? 0) + 1);
    if (outcome.status === 'applied') {
      ledger.alreadyApplied += outcome.alreadyApplied.length;
      setAside.push(...outcome.skipped, ...outcome.rejected.map((rejected) => rejected.event));
    } else if (outcome.status === 'parked') {
      setAside.push(...outcome.setAside);
    }
  }
  for (const event of setAside) ledger.setAside.add(eventId(event));
}

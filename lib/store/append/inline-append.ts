import { DynamoRequestError, ValidationError } from '../../errors';
import { TransactionLimits, abortReason, cancelled, errorName, itemSize } from '../../dynamo';
import type { AppendOutcome } from '../commits';
import type { InlineDeferred, InlinePlan, InlineProjection, InlineResult, TransactPut } from '../inline';
import type { StreamEvent } from '../types';

/** A projection whose rows go into the transaction, and their Puts. */
interface Included {
  readonly projection: InlineProjection;
  readonly puts: ReadonlyArray<TransactPut>;
  readonly applied: ReadonlyArray<StreamEvent>;
}

/** What an append's own transaction holds beside inline rows: its commits, and whether an idempotency sentinel goes with them. */
export interface OwnItems {
  readonly commits: ReadonlyArray<Record<string, unknown>>;
  readonly sentinel: boolean;
  /** The version the append goes after. */
  readonly expectedVersion: number;
}

/**
 * Sends an append with its inline projections' rows in the same TransactWriteItems (`send`, with the rows'
 * Puts beside the append's own items). Each projection plans
 * its rows (strongly consistent reads, the fold, Puts conditioned as the projector's writes); those that
 * can't be applied inline, or don't fit DynamoDB's limits beside the events, are left to the projector.
 * When only rows fail (the projector moved one since it was read), the append goes again without their
 * projections: the events are written once, whatever the rows do.
 */
export async function sendInlineAppend(
  send: (extras: ReadonlyArray<TransactPut>) => Promise<AppendOutcome>,
  own: OwnItems,
  events: ReadonlyArray<StreamEvent>,
  projections: ReadonlyArray<InlineProjection>,
  signal: AbortSignal | undefined,
): Promise<{ outcome: AppendOutcome; inline: InlineResult }> {
  const deferred: InlineDeferred[] = [];
  if (cancelled(signal)) throw abortReason(signal);
  const planned = await Promise.all(projections.map((projection) => planSafely(projection, events, own.expectedVersion, signal)));
  let included = fit(own, projections, planned, deferred);
  for (;;) {
    const outcome = await send(included.flatMap((entry) => entry.puts)).catch((error: unknown) => {
      // DynamoDB refused the request as a whole (nothing was written): the rows may be why, so the
      // append goes again without them rather than fail for them.
      if (included.length === 0 || errorName(error instanceof DynamoRequestError ? error.cause : error) !== 'ValidationException') throw error;
      for (const entry of included) deferred.push({ projection: entry.projection.name, reason: 'failed', error });
      included = [];
      return 'again' as const;
    });
    if (outcome === 'again') continue;
    if (outcome.kind !== 'extrasLost') {
      if (outcome.kind === 'duplicate') {
        // An earlier append with this key answered: this call wrote no row.
        return {
          outcome,
          inline: { applied: [], deferred: projections.map((projection) => ({ projection: projection.name, reason: 'duplicate' })) },
        };
      }
      return { outcome, inline: { applied: included.map((entry) => ({ projection: entry.projection.name, events: entry.applied })), deferred } };
    }
    const lost = projectionsAt(included, outcome.lost);
    for (const [projection, code] of lost) {
      const conflict = code === 'ConditionalCheckFailed' || code === 'TransactionConflict';
      deferred.push({
        projection: projection.name,
        reason: conflict ? 'conflict' : 'failed',
        ...(conflict ? {} : { error: new Error(`DynamoDB refused the row: ${code}`) }),
      });
    }
    included = included.filter((entry) => !lost.has(entry.projection));
  }
}

/** A projection's plan; one that failed is deferred (the projector meets the same error), unless the append was aborted. */
async function planSafely(
  projection: InlineProjection,
  events: ReadonlyArray<StreamEvent>,
  previousVersion: number,
  signal: AbortSignal | undefined,
): Promise<InlinePlan> {
  try {
    return await projection.planInline(events, previousVersion, signal);
  } catch (error) {
    if (cancelled(signal)) throw abortReason(signal);
    return { kind: 'deferred', reason: 'failed', error };
  }
}

/**
 * The projections whose Puts fit beside the append's own items, in the order given: DynamoDB takes 100
 * items and 4 MB in one transaction. The others are deferred (`limits`), as are those that planned none.
 */
function fit(
  own: OwnItems,
  projections: ReadonlyArray<InlineProjection>,
  planned: ReadonlyArray<InlinePlan>,
  deferred: InlineDeferred[],
): Included[] {
  // The append's own items: its commits and the idempotency sentinel (small).
  let count = own.commits.length + (own.sentinel ? 1 : 0);
  let bytes = own.commits.reduce((sum, item) => sum + itemSize(item), 0) + (count - own.commits.length) * SMALL_ITEM_BYTES;
  const included: Included[] = [];
  projections.forEach((projection, index) => {
    const part = planned[index] as InlinePlan;
    if (part.kind === 'deferred') {
      deferred.push({ projection: projection.name, reason: part.reason, ...(part.error === undefined ? {} : { error: part.error }) });
      return;
    }
    const size = part.puts.reduce((sum, put) => sum + itemSize(put.Item ?? {}), 0);
    if (count + part.puts.length > TransactionLimits.items || bytes + size > TransactionLimits.transactionBytes) {
      deferred.push({ projection: projection.name, reason: 'limits' });
      return;
    }
    count += part.puts.length;
    bytes += size;
    included.push({ projection, puts: part.puts, applied: part.applied });
  });
  return included;
}

/** A generous size for the sentinel: keys and a few attributes. */
const SMALL_ITEM_BYTES = 4096;

/** The projections owning the refused Puts (by index among the transaction's extra Puts), with a reason code of each. */
function projectionsAt(included: ReadonlyArray<Included>, lost: ReadonlyArray<{ index: number; code: string }>): Map<InlineProjection, string> {
  const owners = new Map<InlineProjection, string>();
  let start = 0;
  for (const entry of included) {
    const end = start + entry.puts.length;
    const refused = lost.find(({ index }) => index >= start && index < end);
    if (refused !== undefined) owners.set(entry.projection, refused.code);
    start = end;
  }
  return owners;
}

/** Checks the `inline` option of an append: projections of this stream, each once. */
export function validateInline(streamName: string, inline: unknown): ReadonlyArray<InlineProjection> {
  if (inline === undefined) return [];
  const invalid = (index: number | undefined, message: string) =>
    new ValidationError(`Expected \`inline\` to list projections of stream ${streamName}, each once: ${message}.`, [
      { path: index === undefined ? ['inline'] : ['inline', index], message },
    ]);
  if (!Array.isArray(inline)) throw invalid(undefined, 'not an array');
  const seen = new Set<string>();
  inline.forEach((projection: Partial<InlineProjection> | null, index) => {
    if (typeof projection !== 'object' || projection === null || typeof projection.planInline !== 'function' || !Array.isArray(projection.streams)) {
      throw invalid(index, 'not a Projection or MultiSourceProjection');
    }
    if (!projection.streams.some((stream) => stream.name === streamName))
      throw invalid(index, `${String(projection.name)} does not fold ${streamName}`);
    if (seen.has(String(projection.name))) throw invalid(index, `${String(projection.name)} is listed twice`);
    seen.add(String(projection.name));
  });
  return inline as ReadonlyArray<InlineProjection>;
}

/**
 * Outbox checks shared by the delivery schedules and the crash scenario: what a relay published, against
 * the events the projections with an outbox applied.
 */
import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ChaosSummary } from './summary';

/** One publication, in the order the relay made it. */
export interface Publication {
  /** `<stream>#<stream id>#<version>`, stable across republications. */
  readonly id: string;
  /** The row the message came from: its projection and key. */
  readonly row: string;
}

/** Items left in an outbox table (strongly consistent). */
export async function outboxItems(client: DynamoDBClient, table: string): Promise<number> {
  let count = 0;
  let start: Record<string, never> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, ConsistentRead: true, Select: 'COUNT', ExclusiveStartKey: start }));
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey as Record<string, never> | undefined;
  } while (start !== undefined);
  return count;
}

/** The stream instance and version an id names. */
function parseId(id: string): { instance: string; version: number } {
  const cut = id.lastIndexOf('#');
  return { instance: id.slice(0, cut), version: Number(id.slice(cut + 1)) };
}

/**
 * Checks that every expected id was published at least once and nothing else was, that per row the first
 * publication of each id comes in version order per source instance (a multi-source row's instances may
 * interleave), and that the outbox ended empty. Counts publications and duplicates into `summary`.
 */
export function checkPublications(
  summary: ChaosSummary,
  label: string,
  published: ReadonlyArray<Publication>,
  expected: ReadonlySet<string>,
  left: number,
): void {
  const seen = new Set<string>();
  const last = new Map<string, number>();
  for (const { id, row } of published) {
    if (seen.has(id)) continue;
    seen.add(id);
    if (!expected.has(id)) summary.problem(`${label}: published ${id}, which no projection applied`);
    const { instance, version } = parseId(id);
    const key = `${row} ${instance}`;
    const before = last.get(key) ?? 0;
    if (version <= before) {
      summary.outboxDisorder++;
      summary.problem(`${label}: row ${row} first published ${id} after version ${before} of ${instance}`);
    }
    last.set(key, Math.max(before, version));
  }
  for (const id of expected) {
    if (seen.has(id)) continue;
    summary.outboxMissing++;
    summary.problem(`${label}: message ${id} of an applied event never published`);
  }
  if (left > 0) {
    summary.outboxMissing += left;
    summary.problem(`${label}: ${left} messages left in the outbox after the relay drained it`);
  }
  summary.outboxPublished += published.length;
  summary.outboxDuplicates += published.length - seen.size;
}

import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventsTableDefinition, readModelTableDefinition, type AnyProjection, type FailedOutcome, type RowOutcome } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { outboxTableDefinition } from 'dynafold/outbox';
import { injectFaults } from '../../chaos/faults';
import { storedMessage } from '../../lib/outbox/stored-message';
import { deliver, type Delivery } from './delivery';
import { createTestTable, localConfig } from './dynamo';
import { accountModel, eventKey, ledgerStream, toNewEvent, type LedgerAppend, type LedgerEvent, type LedgerStream } from './ledger';
import { insertsOnly, readStreamRecords } from './stream-records';

/** What one generated case ran against: its streams, the read-model client (faulted) and its outbox table. */
export interface LedgerCase {
  readonly a: LedgerStream;
  readonly b: LedgerStream;
  /** A client whose read-model writes lose races (injected conditional failures) at the case's rate. */
  readonly rows: DynamoDBClient;
  readonly viewsTable: string;
  /** A name no other case uses, for models and projections. */
  readonly name: string;
  readonly outboxTable: string | undefined;
  /** Every event of every instance, read back from the store. */
  readonly history: ReadonlyMap<string, ReadonlyArray<LedgerEvent>>;
}

/** What a delivery went through: the projections, and each one's failed row outcomes. */
export interface Delivered {
  readonly projections: Record<string, AnyProjection>;
  readonly failed: ReadonlyMap<string, ReadonlyArray<FailedOutcome>>;
}

let cases = 0;

/** One events table per case keeps cases apart; rows share one views table under per-case model names. */
export async function createViewsTable(client: DynamoDBClient): Promise<string> {
  return (await createTestTable(client, (name) => readModelTableDefinition(name, [accountModel(client, name, 'Any')]), 'prop-views')).name;
}

/**
 * Runs one case: appends the workload, reads the real stream records back, builds the projections and
 * delivers the records to all of them through `processBatch` as `delivery` says, with lost races
 * injected at `lostRaces`. Resolves every applied event per projection, in the order calls reported them.
 */
export async function runLedgerCase(
  client: DynamoDBClient,
  viewsTable: string,
  input: { readonly workload: ReadonlyArray<LedgerAppend>; readonly delivery: Delivery; readonly lostRaces: number; readonly outbox: boolean },
  projections: (context: LedgerCase) => Record<string, AnyProjection>,
  check: (context: LedgerCase, applied: ReadonlyMap<string, string[]>, delivered: Delivered) => Promise<void>,
): Promise<void> {
  const events = await createTestTable(client, eventsTableDefinition, 'prop-events');
  const outbox = input.outbox ? await createTestTable(client, outboxTableDefinition, 'prop-outbox') : undefined;
  const rows = new DynamoDBClient({ ...localConfig(), maxAttempts: 1 });
  injectFaults(rows, { seed: input.delivery.seed, rate: input.lostRaces, kinds: ['conditional'], readModelTables: [viewsTable] });
  try {
    const streams = { A: ledgerStream(client, events.name, 'A'), B: ledgerStream(client, events.name, 'B') };
    const perEvent = {
      A: ledgerStream(client, events.name, 'A', { itemPerEvent: true }),
      B: ledgerStream(client, events.name, 'B', { itemPerEvent: true }),
    };
    const history = new Map<string, LedgerEvent[]>();
    for (const append of input.workload) {
      const writer = (append.itemPerEvent === true ? perEvent : streams)[append.stream];
      const { events: written } = await writer.append({ id: append.id }, append.events.map(toNewEvent) as never);
      const key = `${append.stream}#${append.id}`;
      history.set(key, [...(history.get(key) ?? []), ...(written as LedgerEvent[])]);
    }
    const context: LedgerCase = {
      a: ledgerStream(rows, events.name, 'A'),
      b: ledgerStream(rows, events.name, 'B'),
      rows,
      viewsTable,
      name: `P${++cases}x${Date.now().toString(36)}`,
      outboxTable: outbox?.name,
      history,
    };
    const byName = projections(context);
    const records = insertsOnly(await readStreamRecords(events.streamArn as string));
    const applied = new Map<string, string[]>(Object.keys(byName).map((name) => [name, []]));
    const failed = new Map<string, FailedOutcome[]>(Object.keys(byName).map((name) => [name, []]));
    await deliver(records, input.delivery, async (batch) => {
      const result = await processBatch(batch, { projections: byName, source: 'lambda' });
      for (const [name, outcomes] of Object.entries(result.outcomes) as Array<[string, ReadonlyArray<RowOutcome>]>) {
        // A failed or parked row may have applied what came before its failing event: `applied` counts there too.
        for (const outcome of outcomes) applied.get(name)?.push(...outcome.applied.map(eventKey));
        for (const outcome of outcomes) if (outcome.status === 'failed') failed.get(name)?.push(outcome);
      }
      return result.response;
    });
    await check(context, applied, { projections: byName, failed });
  } finally {
    rows.destroy();
    await client.send(new DeleteTableCommand({ TableName: events.name }));
    if (outbox !== undefined) await client.send(new DeleteTableCommand({ TableName: outbox.name }));
  }
}

/** An outbox message as stored, with its row partition and place. */
export interface StoredMessage {
  readonly partition: string;
  readonly sk: string;
  readonly projection: string;
  readonly id: string;
  readonly message: unknown;
}

/** Every message in an outbox table, in each partition's order, decompressed as the relay hands it over. */
export async function outboxMessages(client: DynamoDBClient, table: string): Promise<StoredMessage[]> {
  const documents = DynamoDBDocumentClient.from(client);
  const partitions = new Set<string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
    for (const item of page.Items ?? []) partitions.add(String(item['pk']));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  const messages: StoredMessage[] = [];
  for (const partition of [...partitions].sort()) {
    let from: Record<string, unknown> | undefined;
    do {
      const page = await documents.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': partition },
          ConsistentRead: true,
          ExclusiveStartKey: from,
        }),
      );
      for (const item of page.Items ?? []) {
        messages.push({
          partition,
          sk: String(item['sk']),
          projection: String(item['_dfOutbox']),
          id: String(item['id']),
          message: (storedMessage(item) as { message: unknown }).message,
        });
      }
      from = page.LastEvaluatedKey;
    } while (from !== undefined);
  }
  return messages;
}

/** The elements of `items` that occur more than once. */
export function repeated(items: ReadonlyArray<string>): string[] {
  const seen = new Set<string>();
  return items.filter((item) => seen.has(item) || (seen.add(item), false));
}

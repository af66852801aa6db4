/**
 * The bad-input corpus: broken, foreign and hostile stream records, each mixed with good records of the
 * same batch. Every kind is answered as the API documents it — skipped, a decode failure (listed in
 * `decodeFailures` and reported in the response), a failed row (its earliest record reported), or a
 * typed `DynafoldError` for the whole call — and the good records are applied all the same.
 */
import { gzipSync, brotliCompressSync } from 'node:zlib';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { z } from 'zod';
import { DynafoldError, EventStream, Projection, ReadModel, readModelTableDefinition, type StreamEvent } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { asLambdaRecord, insertsOnly, readStreamRecords } from '../__tests__/support/stream-records';
import { ChaosSummary } from './summary';
import { bind, createTables, uniqueTableName, type ClientConfig } from './world';

/** How a bad record must be answered. */
export type Answer = 'skipped' | 'decodeFailure' | 'failedRow' | 'applied';

/** One kind of bad input: records to put between good ones, and the answer each must get. */
export interface BadCase {
  readonly kind: string;
  readonly records: ReadonlyArray<unknown>;
  readonly answers: ReadonlyArray<Answer>;
  readonly source?: 'lambda' | 'pipe';
}

type Image = Record<string, unknown>;
/** The image of a commit of several events: their count, and a list of one map per event. */
type CommitImage = Image & { count?: Record<string, string>; events: { L: Array<Record<string, unknown> & { M?: Image }> } };

/** The attributes of a commit image's event at `index`. */
function eventIn(image: CommitImage, index: number): Image {
  const event = image.events.L[index]?.M;
  if (event === undefined) throw new Error(`the commit record has no event ${index}`);
  return event;
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

let fakeSequence = 90_000_000_000_000_000_000n;
/** A copy of `template` with a new image (or none) and fresh identifiers. */
function withImage(template: DynamoDBRecord, image: Image | undefined, patch: Record<string, unknown> = {}): DynamoDBRecord {
  const record = clone(template) as unknown as Record<string, unknown> & { dynamodb: Record<string, unknown> };
  fakeSequence += 1n;
  record['eventID'] = `bad-${fakeSequence}`;
  record.dynamodb['SequenceNumber'] = String(fakeSequence);
  if (image === undefined) delete record.dynamodb['NewImage'];
  else record.dynamodb['NewImage'] = image;
  return Object.assign(record, patch);
}

/** The image as 0.2 wrote it: the stream id and version repeated beside the keys, the time as an ISO string. */
function as02(image: Image): Image {
  const keys = image as { pk: { S: string }; sk: { S: string }; _df: { S: string }; ts: { N: string } };
  const { ts: _ts, ...rest } = image;
  return {
    ...rest,
    streamId: { S: keys.pk.S.slice(keys._df.S.length + 1) },
    version: { N: String(Number(keys.sk.S.slice('e#'.length))) },
    timestamp: { S: new Date(Number(keys.ts.N)).toISOString() },
  };
}

/** The world the corpus runs in: an Order stream and a Ledger stream with a two-field id. */
export async function prepareBadInput(client: DynamoDBClient) {
  const tables = await createTables(client, 'bad');
  const bound = bind(client, tables, 'bad');
  const ledgerViews = uniqueTableName('bad-ledger');
  const ledger = new EventStream({
    client,
    table: tables.eventsTable,
    name: 'Ledger',
    streamId: ['tenant', 'account'],
    events: { Credited: z.object({ amount: z.number(), memo: z.string() }) },
    compression: { algorithm: 'gzip', thresholdBytes: 64 },
  });
  const balances = (suffix: string) =>
    new ReadModel({
      client,
      table: ledgerViews,
      name: `Balance${suffix}`,
      schema: z.object({ tenant: z.string(), account: z.string(), balance: z.number(), version: z.number() }),
      key: { pk: { field: 'pk', composite: ['tenant', 'account'] }, sk: { field: 'sk', composite: [] } },
    });
  await client.send(new CreateTableCommand(readModelTableDefinition(ledgerViews, [balances('')])));
  const balanceProjection = (suffix: string) =>
    new Projection({
      stream: ledger,
      readModel: balances(suffix),
      key: (id) => ({ tenant: id.tenant, account: id.account }),
      initial: (id) => ({ tenant: id.tenant, account: id.account, balance: 0, version: 0 }),
      evolve: (state, event) => ({ ...state, balance: state.balance + event.data.amount }),
      checkpoint: 'version',
    });

  // One event per append, so each is a record of its own (a commit of one, its attributes at the top level
  // of the item): the corpus finds records by version and breaks one event's attributes.
  for (const event of [
    { type: 'OrderPlaced' as const, data: { customer: 'ada' } },
    { type: 'ItemAdded' as const, data: { sku: 'a', price: 3 } },
    { type: 'ItemAdded' as const, data: { sku: 'b', price: 4 } },
  ]) {
    await bound.orders.append({ orderId: 'good' }, [event]);
  }
  await bound.orders.append({ orderId: 'big' }, [{ type: 'OrderPlaced', data: { customer: 'bob' } }]);
  // One append of three events: one record, a commit holding them in a list beside their count.
  await bound.orders.append({ orderId: 'commit' }, [
    { type: 'OrderPlaced', data: { customer: 'cy' } },
    { type: 'ItemAdded', data: { sku: 'c', price: 5 } },
    { type: 'ItemAdded', data: { sku: 'd', price: 6 } },
  ]);
  // Large enough to be stored compressed (binary), so the corpus can corrupt real compressed data.
  for (const event of [
    { type: 'Credited' as const, data: { amount: 5, memo: 'x'.repeat(100) } },
    { type: 'Credited' as const, data: { amount: 7, memo: 'y'.repeat(100) } },
  ]) {
    await ledger.append({ tenant: 't1', account: 'a1' }, [event]);
  }
  await bound.orders.saveSnapshot({ orderId: 'good' }, { version: 1, state: { placed: true } });
  const all = await readStreamRecords(tables.streamArn);
  const inserts = insertsOnly(all);
  const find = (pk: string, version: number) => {
    const sk = `e#${String(version).padStart(10, '0')}`;
    const record = inserts.find((r) => r.dynamodb?.NewImage?.['pk']?.S === pk && r.dynamodb?.NewImage?.['sk']?.S === sk);
    if (record === undefined) throw new Error(`no record ${pk} v${version}`);
    return record;
  };
  const snapshot = all.find((r) => r.dynamodb?.NewImage?.['_dfSnapshot'] !== undefined) as _Record;
  return {
    client,
    bound,
    tables,
    balanceProjection,
    good: [find('Order#good', 1), find('Order#good', 2)].map(asLambdaRecord),
    big: asLambdaRecord(find('Order#big', 1)),
    goodThird: asLambdaRecord(find('Order#good', 3)),
    commit: asLambdaRecord(find('Order#commit', 1)),
    ledgerRecord: asLambdaRecord(find('Ledger#t1#a1', 1)),
    snapshot: asLambdaRecord(snapshot),
  };
}

export type BadInputWorld = Awaited<ReturnType<typeof prepareBadInput>>;

/** The corpus: at least 25 kinds of bad input. */
export function badCases(world: BadInputWorld): BadCase[] {
  const template = world.goodThird;
  const image = () => clone(template.dynamodb?.NewImage) as unknown as Image;
  const ledgerImage = () => clone(world.ledgerRecord.dynamodb?.NewImage) as unknown as Image;
  const patched = (patch: (img: Image) => void) => {
    const img = image();
    patch(img);
    return withImage(template, img);
  };
  const ledgerPatched = (patch: (img: Image) => void) => {
    const img = ledgerImage();
    patch(img);
    return withImage(world.ledgerRecord, img);
  };
  const commitImage = () => clone(world.commit.dynamodb?.NewImage) as unknown as CommitImage;
  const commitPatched = (patch: (img: CommitImage) => void) => {
    const img = commitImage();
    patch(img);
    return withImage(world.commit, img);
  };
  if (commitImage().count?.N !== '3') throw new Error('the commit record must hold three events');
  const gz = gzipSync(Buffer.from(JSON.stringify({ amount: 9, memo: 'z'.repeat(200) })));
  if (ledgerImage()['enc'] === undefined) throw new Error('the ledger record must carry compressed data');
  const cases: BadCase[] = [
    {
      kind: 'INSERT without dynamodb (pipe, has eventID)',
      source: 'pipe',
      records: [{ eventID: 'no-dynamodb', eventName: 'INSERT' }],
      answers: ['decodeFailure'],
    },
    { kind: 'INSERT without NewImage', records: [withImage(template, undefined)], answers: ['decodeFailure'] },
    { kind: 'NewImage that is a string', records: [withImage(template, 'garbage' as unknown as Image)], answers: ['decodeFailure'] },
    { kind: 'MODIFY of an event item', records: [withImage(template, image(), { eventName: 'MODIFY' })], answers: ['skipped'] },
    { kind: 'REMOVE of an event item', records: [withImage(template, undefined, { eventName: 'REMOVE' })], answers: ['skipped'] },
    { kind: 'record without eventName', records: [withImage(template, image(), { eventName: undefined })], answers: ['skipped'] },
    { kind: 'item of another table', records: [withImage(template, { id: { S: 'user-1' }, name: { S: 'ada' } })], answers: ['skipped'] },
    { kind: 'event of another stream', records: [patched((img) => (img['_df'] = { S: 'Invoice' }))], answers: ['skipped'] },
    { kind: 'marker of the wrong type', records: [patched((img) => (img['_df'] = { N: '1' }))], answers: ['skipped'] },
    {
      kind: 'snapshot item of the stream',
      records: [withImage(world.snapshot, clone(world.snapshot.dynamodb?.NewImage))],
      answers: ['skipped'],
    },
    { kind: 'sort key missing', records: [patched((img) => delete img['sk'])], answers: ['decodeFailure'] },
    { kind: 'sort key of a version not in 10 digits', records: [patched((img) => (img['sk'] = { S: 'e#3' }))], answers: ['decodeFailure'] },
    { kind: 'sort key of version zero', records: [patched((img) => (img['sk'] = { S: 'e#0000000000' }))], answers: ['decodeFailure'] },
    { kind: 'sort key of a negative version', records: [patched((img) => (img['sk'] = { S: 'e#-000000004' }))], answers: ['decodeFailure'] },
    { kind: 'sort key as a number', records: [patched((img) => (img['sk'] = { N: '3' }))], answers: ['decodeFailure'] },
    { kind: 'partition key missing', records: [patched((img) => delete img['pk'])], answers: ['decodeFailure'] },
    { kind: 'partition key of another stream', records: [patched((img) => (img['pk'] = { S: 'Invoice#good' }))], answers: ['decodeFailure'] },
    {
      kind: 'a 0.2 item (streamId, version and an ISO timestamp beside the keys)',
      records: [withImage(world.big, as02(clone(world.big.dynamodb?.NewImage) as unknown as Image))],
      answers: ['applied'],
    },
    { kind: '0.2 version as a string', records: [patched((img) => (img['version'] = { S: '3' }))], answers: ['decodeFailure'] },
    { kind: '0.2 version other than the sort key says', records: [patched((img) => (img['version'] = { N: '2' }))], answers: ['decodeFailure'] },
    { kind: '0.2 version not an integer', records: [patched((img) => (img['version'] = { N: '2.5' }))], answers: ['decodeFailure'] },
    {
      kind: '0.2 version beyond a safe integer',
      records: [patched((img) => (img['version'] = { N: '123456789012345678901234567890' }))],
      answers: ['decodeFailure'],
    },
    {
      kind: '0.2 streamId other than the partition key says',
      records: [patched((img) => (img['streamId'] = { S: 'other' }))],
      answers: ['decodeFailure'],
    },
    { kind: 'append time as a string', records: [patched((img) => (img['ts'] = { S: '2025-06-01T10:00:00.000Z' }))], answers: ['decodeFailure'] },
    {
      kind: 'append time beyond a safe integer',
      records: [patched((img) => (img['ts'] = { N: '123456789012345678901234567890' }))],
      answers: ['decodeFailure'],
    },
    { kind: 'type as a number', records: [patched((img) => (img['type'] = { N: '7' }))], answers: ['decodeFailure'] },
    { kind: 'unknown event type', records: [patched((img) => (img['type'] = { S: 'OrderExploded' }))], answers: ['decodeFailure'] },
    {
      kind: 'zod-invalid data: a number as a string',
      records: [patched((img) => (img['data'] = { M: { sku: { S: 'c' }, price: { S: '12' } } }))],
      answers: ['decodeFailure'],
    },
    { kind: 'zod-invalid data: data missing', records: [patched((img) => delete img['data'])], answers: ['decodeFailure'] },
    {
      kind: 'truncated gzip data',
      records: [ledgerPatched((img) => ((img['enc'] = { S: 'gzip' }), (img['data'] = { B: gz.subarray(0, gz.length - 6).toString('base64') })))],
      answers: ['decodeFailure'],
    },
    {
      kind: 'corrupt brotli data',
      records: [ledgerPatched((img) => ((img['enc'] = { S: 'brotli' }), (img['data'] = { B: Buffer.from('not brotli at all').toString('base64') })))],
      answers: ['decodeFailure'],
    },
    {
      kind: 'base64 garbage as binary data',
      records: [ledgerPatched((img) => (img['data'] = { B: '@@@ not base64 @@@' }))],
      answers: ['decodeFailure'],
    },
    {
      kind: 'compressed JSON that fails its schema',
      records: [
        ledgerPatched(
          (img) => (
            (img['data'] = { B: brotliCompressSync(Buffer.from('{"amount":"9","memo":"m"}')).toString('base64') }),
            (img['enc'] = { S: 'brotli' })
          ),
        ),
      ],
      answers: ['decodeFailure'],
    },
    {
      kind: 'marked compressed, data a map',
      records: [ledgerPatched((img) => (img['data'] = { M: { amount: { N: '9' } } }))],
      answers: ['decodeFailure'],
    },
    { kind: 'unknown compression', records: [ledgerPatched((img) => (img['enc'] = { S: 'zstd' }))], answers: ['decodeFailure'] },
    { kind: 'attribute value of an unknown type', records: [patched((img) => (img['ts'] = { Q: 'what' }))], answers: ['decodeFailure'] },
    {
      kind: '"#" ambiguity in a two-field stream id',
      records: [ledgerPatched((img) => (img['pk'] = { S: 'Ledger#t1#a#1' }))],
      answers: ['failedRow'],
    },
    { kind: 'empty stream id', records: [patched((img) => (img['pk'] = { S: 'Order#' }))], answers: ['failedRow'] },
    {
      kind: 'version beyond the stream head (not from this table)',
      records: [patched((img) => ((img['pk'] = { S: 'Order#ghost' }), (img['sk'] = { S: 'e#0000000042' })))],
      answers: ['failedRow'],
    },
    {
      kind: 'oversized item (a 450 KB attribute on a real event)',
      records: [withImage(world.big, { ...(clone(world.big.dynamodb?.NewImage) as unknown as Image), padding: { S: 'p'.repeat(450_000) } })],
      answers: ['applied'],
    },
    { kind: 'the same good record twice', records: [world.big, world.big], answers: ['applied', 'applied'] },
    // Commits of several events: a broken commit, or one bad event in a good one, fails the whole record.
    { kind: 'a good commit of three events', records: [world.commit], answers: ['applied'] },
    {
      kind: 'commit counting more events than its list holds',
      records: [commitPatched((img) => (img.count = { N: '4' }))],
      answers: ['decodeFailure'],
    },
    {
      kind: 'commit counting fewer events than its list holds',
      records: [commitPatched((img) => (img.count = { N: '2' }))],
      answers: ['decodeFailure'],
    },
    { kind: 'commit with a list of events and no count', records: [commitPatched((img) => delete img.count)], answers: ['decodeFailure'] },
    { kind: 'commit counting one event', records: [commitPatched((img) => (img.count = { N: '1' }))], answers: ['decodeFailure'] },
    { kind: 'commit count as a string', records: [commitPatched((img) => (img.count = { S: '3' }))], answers: ['decodeFailure'] },
    {
      kind: 'commit whose events are a map, not a list',
      records: [commitPatched((img) => ((img as Image)['events'] = { M: { first: { M: eventIn(img, 0) } } }))],
      answers: ['decodeFailure'],
    },
    {
      kind: 'commit with an event that is not a map',
      records: [commitPatched((img) => (img.events.L[1] = { S: 'ItemAdded' }))],
      answers: ['decodeFailure'],
    },
    {
      kind: 'commit with one zod-invalid event among good ones',
      records: [commitPatched((img) => (eventIn(img, 1)['data'] = { M: { sku: { S: 'c' }, price: { S: '5' } } }))],
      answers: ['decodeFailure'],
    },
    {
      kind: 'commit with one event of an unknown type among good ones',
      records: [commitPatched((img) => (eventIn(img, 2)['type'] = { S: 'OrderExploded' }))],
      answers: ['decodeFailure'],
    },
    {
      kind: 'commit of several beyond the stream head (not from this table)',
      records: [commitPatched((img) => ((img['pk'] = { S: 'Order#ghost-commit' }), (img['sk'] = { S: 'e#0000000042' })))],
      answers: ['failedRow'],
    },
  ];
  return cases;
}

/** What one case's batch must produce, and what it did. */
export interface CaseResult {
  readonly kind: string;
  readonly problems: string[];
}

/** Runs one case: [good, ...bad, good] through processBatch on fresh rows; checks every answer exactly. */
export async function runBadCase(world: BadInputWorld, badCase: BadCase, index: number): Promise<CaseResult> {
  const problems: string[] = [];
  const source = badCase.source ?? 'lambda';
  const suffix = `Bad${index}`;
  // Fresh rows for every case, so the good records are applied anew.
  const projections = { summaries: bind(world.client, world.tables, suffix).projections.summaries, balances: world.balanceProjection(suffix) };
  const [good0, good1] = world.good as [DynamoDBRecord, DynamoDBRecord];
  const records: unknown[] = [good0, ...badCase.records, good1];
  let result;
  try {
    result = await processBatch(records as DynamoDBRecord[], { projections, source });
  } catch (error) {
    return { kind: badCase.kind, problems: [`processBatch rejected: ${String(error)}`] };
  }
  const decodePositions = new Set(result.decodeFailures.map((failure) => failure.position));
  const failedRowPositions = new Set<number>();
  const appliedPositions = new Set<number>();
  for (const outcomes of Object.values(result.outcomes)) {
    for (const outcome of outcomes) {
      for (const position of outcome.positions) (outcome.status === 'failed' ? failedRowPositions : appliedPositions).add(position);
    }
  }
  const expectedFailed: number[] = [];
  badCase.answers.forEach((answer, offset) => {
    const position = offset + 1;
    const got: Answer = decodePositions.has(position)
      ? 'decodeFailure'
      : failedRowPositions.has(position)
        ? 'failedRow'
        : appliedPositions.has(position)
          ? 'applied'
          : 'skipped';
    if (got !== answer) problems.push(`record ${position}: expected ${answer}, got ${got}`);
    if (answer === 'decodeFailure' || answer === 'failedRow') expectedFailed.push(position);
    if (answer === 'decodeFailure') {
      const error = result.decodeFailures.find((failure) => failure.position === position)?.error;
      if (!(error instanceof DynafoldError)) problems.push(`record ${position}: decode failure is not a DynafoldError: ${String(error)}`);
    }
  });
  // The good records: both applied on the fresh row, in one outcome.
  const goodOutcome = result.outcomes.summaries.find((outcome) => outcome.streamId === 'good');
  const applied = goodOutcome?.status === 'applied' ? goodOutcome.applied.map((event: StreamEvent) => event.version) : [];
  if (JSON.stringify(applied) !== '[1,2]') problems.push(`good records: applied ${JSON.stringify(applied)}, expected [1,2]`);
  const identify = (record: unknown) =>
    source === 'pipe' ? (record as DynamoDBRecord).eventID : (record as DynamoDBRecord).dynamodb?.SequenceNumber;
  const expectedResponse = { batchItemFailures: expectedFailed.map((position) => ({ itemIdentifier: identify(records[position]) })) };
  if (JSON.stringify(result.response) !== JSON.stringify(expectedResponse)) {
    problems.push(`response ${JSON.stringify(result.response)}, expected ${JSON.stringify(expectedResponse)}`);
  }
  return { kind: badCase.kind, problems };
}

/** Runs the whole corpus (for the CLI). */
export async function runBadInputCorpus(_config: ClientConfig, client: DynamoDBClient): Promise<ChaosSummary> {
  const summary = new ChaosSummary();
  const world = await prepareBadInput(client);
  const cases = badCases(world);
  for (const [index, badCase] of cases.entries()) {
    const result = await runBadCase(world, badCase, index);
    for (const problem of result.problems) summary.problem(`bad input "${result.kind}": ${problem}`);
  }
  summary.badInputKinds = cases.length;
  return summary;
}

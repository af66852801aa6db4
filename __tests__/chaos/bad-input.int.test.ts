import type { DynamoDBRecord } from 'aws-lambda';
import { StreamRecordIdentifierMissingError, ValidationError, lambdaHandler, type StreamEvent } from 'dynafold';
import { processBatch } from 'dynafold/lambda';
import { badCases, prepareBadInput, runBadCase, type BadInputWorld } from '../../chaos/bad-input';
import { bind } from '../../chaos/world';
import { testClient } from '../support/dynamo';

const client = testClient();
let world: BadInputWorld;

afterAll(() => client.destroy());

beforeAll(async () => {
  world = await prepareBadInput(client);
});

/** How many kinds the corpus holds (checked below), so that every kind runs as a test of its own. */
const corpusSize = 52;

test('the corpus has at least 25 kinds of bad input, each run below', () => {
  expect(badCases(world).length).toBeGreaterThanOrEqual(25);
  expect(badCases(world)).toHaveLength(corpusSize);
});

describe('each kind, between good records of the same batch', () => {
  // Built lazily: the world exists only once beforeAll ran.
  const kinds = Array.from({ length: corpusSize }, (_, index) => index);
  test.each(kinds)('case %i is answered as documented, the good records applied and the response exact', async (index) => {
    const cases = badCases(world);
    const badCase = cases[index];
    if (badCase === undefined) return;
    const result = await runBadCase(world, badCase, index);
    expect({ kind: result.kind, problems: result.problems }).toEqual({ kind: badCase.kind, problems: [] });
  });
});

describe('records that fail the whole call with a typed error', () => {
  const fresh = (suffix: string) => ({ summaries: bind(client, world.tables, suffix).projections.summaries });

  test('a failed record without an identifier (lambda: no SequenceNumber; pipe: no eventID) rejects with StreamRecordIdentifierMissingError, after applying the good ones', async () => {
    const [good0, good1] = world.good as [DynamoDBRecord, DynamoDBRecord];
    const noSequence = { eventID: 'x', eventName: 'INSERT', dynamodb: {} };
    const lambda = fresh('IdLambda');
    await expect(processBatch([good0, noSequence as DynamoDBRecord, good1], { projections: lambda, source: 'lambda' })).rejects.toBeInstanceOf(
      StreamRecordIdentifierMissingError,
    );
    // Nothing lost: the good records were applied, so a redelivery of the whole batch finds them done.
    expect((await lambda.summaries.readModel.get({ orderId: 'good' }, { consistent: true }))?.version).toBe(2);
    const noEventId = { eventName: 'INSERT', dynamodb: { SequenceNumber: '1' } };
    await expect(processBatch([good0, noEventId as DynamoDBRecord], { projections: fresh('IdPipe'), source: 'pipe' })).rejects.toMatchObject({
      code: 'projector.identifierMissing',
      position: 1,
      source: 'pipe',
    });
    const numeric = { eventName: 'INSERT', dynamodb: { SequenceNumber: 12 } };
    await expect(processBatch([numeric as unknown as DynamoDBRecord], { projections: fresh('IdNumber'), source: 'lambda' })).rejects.toBeInstanceOf(
      StreamRecordIdentifierMissingError,
    );
  });

  test("null records and records without identifiers are listed in decodeFailures with onDecodeFailure: 'skip', and acknowledged", async () => {
    const [good0, good1] = world.good as [DynamoDBRecord, DynamoDBRecord];
    const result = await processBatch([null, good0, 42, { eventName: 'INSERT' }, good1] as unknown as DynamoDBRecord[], {
      projections: fresh('Skip'),
      source: 'lambda',
      onDecodeFailure: 'skip',
    });
    expect(result.decodeFailures.map((failure) => failure.position)).toEqual([0, 2, 3]);
    expect(result.response).toEqual({ batchItemFailures: [] });
    const outcome = result.outcomes.summaries[0];
    expect(outcome?.status === 'applied' ? outcome.applied.map((event: StreamEvent) => event.version) : []).toEqual([1, 2]);
  });

  test('non-array Records and an empty batch', async () => {
    await expect(processBatch(null as unknown as DynamoDBRecord[], { projections: fresh('NonArray'), source: 'lambda' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      processBatch({ length: 1, 0: world.good[0] } as unknown as DynamoDBRecord[], { projections: fresh('NonArray'), source: 'lambda' }),
    ).rejects.toBeInstanceOf(ValidationError);
    const handler = lambdaHandler({ projections: fresh('Handler') });
    await expect(handler({} as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(handler({ Records: 'nope' } as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(handler({ Records: [] })).resolves.toEqual({ batchItemFailures: [] });
    const empty = await processBatch([], { projections: fresh('Empty'), source: 'pipe' });
    expect(empty).toMatchObject({ response: { batchItemFailures: [] }, decodeFailures: [], failedRecords: [] });
  });
});

test('applyBatch never rejects: foreign, id-less and missing events each fail or are ignored on their own, the good ones applied', async () => {
  const { projections, orders } = bind(client, world.tables, 'Apply');
  const [v1, v2] = await orders.read({ orderId: 'good' }, { toVersion: 2 });
  const base = v1 as StreamEvent;
  const bad: StreamEvent[] = [
    { ...base, streamName: 'Invoice' }, // another stream's event: ignored
    { ...base, streamId: '' }, // no stream id: that row fails
    { ...base, streamId: 'ghost', version: 5 }, // beyond the stream's head: that row fails
  ];
  const result = await projections.summaries.applyBatch([v1, ...bad, v2] as never);
  const byStream = new Map(result.outcomes.map((outcome) => [outcome.streamId, outcome]));
  expect([...byStream.keys()].sort()).toEqual(['', 'ghost', 'good']);
  expect(byStream.get('good')).toMatchObject({ status: 'applied', version: 2 });
  expect(byStream.get('')?.status).toBe('failed');
  expect(byStream.get('ghost')).toMatchObject({ status: 'failed', error: { code: 'projector.missingEvents' } });
  expect(result.ignored).toEqual([1]);
});

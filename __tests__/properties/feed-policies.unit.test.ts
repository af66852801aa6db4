import fc from 'fast-check';
import { ChangeFeedTrimmedError, type LeaseRecord, type ShardCheckpoint } from 'dynafold/feed';
import { resolveCompletion } from '../../lib/feed/completion';
import { canTakeLease, leaseWaitDelay, renewalDeadline } from '../../lib/feed/checkpoints/lease-policy';
import { canStart, planStart, streamEnded, type ShardInfo, type StartInput } from '../../lib/feed/shards/lineage';
import { propertySettings } from '../support/delivery';

// The feed's pure policies against small models: shard graphs of a few shards with missing parents,
// leases taken by two owners on one clock, and Lambda's partial batch response contract.
const streamArn = 'arn:aws:dynamodb:local:0:table/t/stream/1';
const IDS = ['a', 'b', 'c', 'd', 'e'] as const;

/** A stream as described, the consumer's checkpoints, and what GetShardIterator says of shards the describe missed. */
interface World {
  readonly described: ShardInfo[];
  readonly checkpoints: Map<string, ShardCheckpoint>;
  readonly verdicts: Map<string, 'gone' | 'present'>;
  readonly startingPosition: 'TRIM_HORIZON' | 'LATEST';
}

const world: fc.Arbitrary<World> = fc
  .record({
    // Each shard's parent is an earlier id (or none); a shard with a child is closed, as on AWS.
    parents: fc.tuple(
      ...IDS.map((_, index) => (index === 0 ? fc.constant(undefined) : fc.option(fc.constantFrom(...IDS.slice(0, index)), { nil: undefined }))),
    ),
    listed: fc.tuple(...IDS.map(() => fc.boolean())),
    closedLeaf: fc.tuple(...IDS.map(() => fc.boolean())),
    checkpoints: fc.tuple(
      ...IDS.map(() =>
        fc.oneof(
          fc.constant(undefined),
          fc.constant<ShardCheckpoint>({ kind: 'finished' }),
          fc.integer({ min: 1, max: 99 }).map<ShardCheckpoint>((n) => ({ kind: 'sequence', sequenceNumber: String(n).padStart(21, '0') })),
        ),
      ),
    ),
    gone: fc.tuple(...IDS.map(() => fc.boolean())),
    startingPosition: fc.constantFrom('TRIM_HORIZON' as const, 'LATEST' as const),
  })
  .map(({ parents, listed, closedLeaf, checkpoints, gone, startingPosition }) => {
    const hasChild = new Set(parents.filter((parent): parent is (typeof IDS)[number] => parent !== undefined));
    const shards = IDS.map((shardId, index) => ({
      shardId,
      parentShardId: parents[index],
      closed: hasChild.has(shardId) || closedLeaf[index] === true,
    }));
    return {
      described: shards.filter((_, index) => listed[index]),
      checkpoints: new Map(
        IDS.flatMap((shardId, index) => (checkpoints[index] === undefined ? [] : [[shardId, checkpoints[index] as ShardCheckpoint] as const])),
      ),
      verdicts: new Map(IDS.map((shardId, index) => [shardId, gone[index] ? ('gone' as const) : ('present' as const)])),
      startingPosition,
    };
  });

/** Plans like the feed does: first without verdicts, then with the verdicts on what the plan asked to confirm. */
function plan(w: World) {
  const input: StartInput = { streamArn, shards: w.described, checkpoints: w.checkpoints, startingPosition: w.startingPosition };
  const first = planStart(input);
  if (first.kind === 'ready') return { asked: [] as string[], result: first };
  const asked = first.shards.map((shard) => shard.shardId);
  const missing = new Map(asked.map((shardId) => [shardId, w.verdicts.get(shardId) ?? 'gone']));
  return { asked, result: planStart({ ...input, missing }) };
}

describe('planStart on random shard graphs', () => {
  test('the generated worlds reach every outcome: ready plans, confirmations and lost records', () => {
    const seen = { ready: 0, confirmed: 0, lost: 0 };
    fc.assert(
      fc.property(world, (w) => {
        try {
          seen[plan(w).asked.length > 0 ? 'confirmed' : 'ready']++;
        } catch {
          seen.lost++;
        }
      }),
      { numRuns: 300, seed: 1 },
    );
    expect(seen.ready).toBeGreaterThan(20);
    expect(seen.confirmed).toBeGreaterThan(20);
    expect(seen.lost).toBeGreaterThan(20);
  });

  test('every shard it knows is read, finished or marked finished exactly once; checkpoints are honoured; parents come first', () => {
    fc.assert(
      fc.property(world, (w) => {
        let planned: ReturnType<typeof plan>;
        try {
          planned = plan(w);
        } catch (error) {
          expect(error).toBeInstanceOf(ChangeFeedTrimmedError);
          return;
        }
        const { asked, result } = planned;
        const listed = new Set(w.described.map((shard) => shard.shardId));
        // It only asks about shards the describe did not list.
        for (const shardId of asked) expect(listed.has(shardId)).toBe(false);
        if (result.kind !== 'ready') throw new Error('a plan with verdicts is ready');
        const placed = [...result.read.map((shard) => shard.shardId), ...result.markFinished, ...result.finished];
        expect(new Set(placed).size).toBe(placed.length);
        for (const shardId of listed) expect(placed).toContain(shardId);
        for (const shard of result.read) {
          const checkpoint = w.checkpoints.get(shard.shardId);
          expect(checkpoint?.kind).not.toBe('finished');
          if (checkpoint?.kind === 'sequence')
            expect(shard.position).toEqual({ type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: checkpoint.sequenceNumber });
          // A parent still to be read holds its children back.
          const pending = new Set(result.read.map((s) => s.shardId));
          if (shard.parentShardId !== undefined && pending.has(shard.parentShardId)) expect(canStart(shard, pending)).toBe(false);
        }
        // A shard with records after its checkpoint is never skipped.
        for (const shardId of result.markFinished) expect(w.checkpoints.get(shardId)?.kind).not.toBe('sequence');
        for (const shardId of result.finished) expect(w.checkpoints.get(shardId)?.kind).toBe('finished');
      }),
      propertySettings(300),
    );
  });

  test('records are never lost silently: a gone shard with a checkpoint, or a gone unfinished parent at a restart, fails the plan', () => {
    fc.assert(
      fc.property(world, (w) => {
        const listed = new Set(w.described.map((shard) => shard.shardId));
        const fresh = w.checkpoints.size === 0;
        const goneWithRecords = [...w.checkpoints].some(
          ([shardId, checkpoint]) => checkpoint.kind === 'sequence' && !listed.has(shardId) && w.verdicts.get(shardId) === 'gone',
        );
        const goneParentAtRestart =
          !fresh &&
          w.described.some((shard) => {
            const parent = shard.parentShardId;
            return (
              parent !== undefined &&
              !listed.has(parent) &&
              w.verdicts.get(parent) === 'gone' &&
              !w.checkpoints.has(shard.shardId) &&
              w.checkpoints.get(parent)?.kind !== 'finished'
            );
          });
        if (goneWithRecords || goneParentAtRestart) expect(() => plan(w)).toThrow(ChangeFeedTrimmedError);
        else expect(() => plan(w)).not.toThrow();
      }),
      propertySettings(300),
    );
  });

  test('a stream ends only when disabled with every listed shard finished and none pending', () => {
    fc.assert(
      fc.property(
        world,
        fc.constantFrom('ENABLED', 'DISABLED', 'DISABLING', undefined),
        fc.subarray([...IDS]),
        fc.nat(2),
        (w, status, finished, pending) => {
          const ended = streamEnded(status, w.described, new Set(finished), pending);
          const allFinished = w.described.every((shard) => finished.includes(shard.shardId as (typeof IDS)[number]));
          expect(ended).toBe((status === 'DISABLED' || status === 'DISABLING') && pending === 0 && allFinished);
        },
      ),
      propertySettings(200),
    );
  });
});

describe('the lease, two owners on one clock', () => {
  type Step = { readonly owner: 'x' | 'y'; readonly advanceMs: number };
  const steps = fc.array(fc.record({ owner: fc.constantFrom('x' as const, 'y' as const), advanceMs: fc.integer({ min: 0, max: 3_000 }) }), {
    minLength: 1,
    maxLength: 30,
  });

  test('holding intervals of different owners never overlap, and a waiter takes a lapsed lease after leaseWaitDelay', () => {
    fc.assert(
      fc.property(steps, fc.integer({ min: 100, max: 5_000 }), (schedule: Step[], durationMs) => {
        const renewEveryMs = Math.floor(durationMs / 3);
        let now = 0;
        let lease: LeaseRecord | undefined;
        const held: Array<{ owner: string; from: number; to: number }> = [];
        for (const step of schedule) {
          now += step.advanceMs;
          if (canTakeLease(lease, step.owner, now)) {
            lease = { owner: step.owner, expiresAt: now + durationMs };
            held.push({ owner: step.owner, from: now, to: lease.expiresAt });
          } else {
            // A waiter sleeps leaseWaitDelay at a time: never longer than a renewal period, never a busy loop.
            const delay = leaseWaitDelay(lease, now, renewEveryMs);
            expect(delay).toBeGreaterThanOrEqual(10);
            expect(delay).toBeLessThanOrEqual(Math.max(10, renewEveryMs));
            let waited = now;
            for (let naps = 0; !canTakeLease(lease, step.owner, waited); naps++) {
              waited += leaseWaitDelay(lease, waited, renewEveryMs);
              expect(naps).toBeLessThan(durationMs / 10 + 2);
            }
            expect(waited).toBeLessThanOrEqual((lease?.expiresAt ?? now) + Math.max(10, renewEveryMs) + 5);
          }
          expect(renewalDeadline(lease?.expiresAt ?? 0, renewEveryMs)).toBeLessThan(lease?.expiresAt ?? 1);
        }
        for (let i = 1; i < held.length; i++) {
          const previous = held[i - 1] as (typeof held)[number];
          const current = held[i] as (typeof held)[number];
          if (previous.owner !== current.owner) expect(current.from).toBeGreaterThanOrEqual(previous.to);
        }
      }),
      propertySettings(300),
    );
  });
});

describe("Lambda's partial batch response contract", () => {
  test('everything before the earliest failure is checkpointed, everything from it is read again; unknown identifiers fail the batch', () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 12 })
          .map((numbers) => [...numbers].sort((x, y) => x - y).map((n) => String(n).padStart(21, '0'))),
        fc.array(fc.nat(20)),
        fc.boolean(),
        (sequenceNumbers, failedIndexes, withUnknown) => {
          const failures = failedIndexes.filter((index) => index < sequenceNumbers.length).map((index) => sequenceNumbers[index] as string);
          const identifiers = [...failures, ...(withUnknown ? ['not-a-record'] : [])];
          const completion = resolveCompletion(sequenceNumbers, { batchItemFailures: identifiers.map((itemIdentifier) => ({ itemIdentifier })) });
          if (identifiers.length === 0) return expect(completion).toEqual({ kind: 'all', checkpoint: sequenceNumbers.at(-1) });
          if (withUnknown) return expect(completion).toMatchObject({ kind: 'batch', retryFrom: sequenceNumbers[0] });
          const earliest = Math.min(...failures.map((failure) => sequenceNumbers.indexOf(failure)));
          expect(completion).toEqual({
            kind: 'partial',
            checkpoint: earliest === 0 ? undefined : sequenceNumbers[earliest - 1],
            retryFrom: sequenceNumbers[earliest],
          });
        },
      ),
      propertySettings(300),
    );
  });
});

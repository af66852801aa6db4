import { ChangeFeedTrimmedError } from 'dynafold/feed';
import { canStart, planStart, streamEnded, type ShardInfo, type StartInput } from '../../lib/feed/shards/lineage';
import type { ShardCheckpoint } from 'dynafold/feed';
import { discoveredPosition, mergeShards, newShards, toShardInfo } from '../../lib/feed/shards/lineage';

const streamArn = 'arn:aws:dynamodb:local:0:table/t/stream/1';
const open = (shardId: string, parentShardId?: string): ShardInfo => ({ shardId, parentShardId, closed: false });
const closed = (shardId: string, parentShardId?: string): ShardInfo => ({ shardId, parentShardId, closed: true });
const at = (sequenceNumber: string): ShardCheckpoint => ({ kind: 'sequence', sequenceNumber });
const finished: ShardCheckpoint = { kind: 'finished' };

function plan(input: Partial<StartInput> & Pick<StartInput, 'shards'>) {
  return planStart({ streamArn, checkpoints: new Map(), startingPosition: 'TRIM_HORIZON', ...input });
}

function ready(input: Partial<StartInput> & Pick<StartInput, 'shards'>) {
  const result = plan(input);
  if (result.kind !== 'ready') throw new Error(`expected a ready plan, got ${JSON.stringify(result)}`);
  return {
    read: Object.fromEntries(result.read.map((shard) => [shard.shardId, shard.position])),
    markFinished: [...result.markFinished].sort(),
    finished: [...result.finished].sort(),
  };
}

describe('planStart at a fresh start', () => {
  it('reads every shard from its trim horizon with TRIM_HORIZON', () => {
    expect(ready({ shards: [closed('a'), open('b', 'a')] })).toEqual({
      read: { a: { type: 'TRIM_HORIZON' }, b: { type: 'TRIM_HORIZON' } },
      markFinished: [],
      finished: [],
    });
  });

  it('with LATEST starts open shards after their latest record and checkpoints closed ones as finished', () => {
    expect(ready({ shards: [closed('a'), open('b', 'a'), open('c')], startingPosition: 'LATEST' })).toEqual({
      read: { b: { type: 'LATEST' }, c: { type: 'LATEST' } },
      markFinished: ['a'],
      finished: [],
    });
  });

  it('asks to confirm a parent missing from the describe, then checkpoints it as finished once gone (it predates the consumer)', () => {
    const shards = [open('b', 'a')];
    expect(plan({ shards })).toEqual({ kind: 'confirm', shards: [{ shardId: 'a', position: { type: 'TRIM_HORIZON' } }] });
    expect(ready({ shards, missing: new Map([['a', 'gone']]) })).toEqual({
      read: { b: { type: 'TRIM_HORIZON' } },
      markFinished: ['a'],
      finished: [],
    });
  });

  it('reads a parent that answers although the describe missed it, before its child', () => {
    const result = ready({ shards: [open('b', 'a')], missing: new Map([['a', 'present']]) });
    expect(result.read).toEqual({ a: { type: 'TRIM_HORIZON' }, b: { type: 'TRIM_HORIZON' } });
  });
});

describe('planStart at a restart', () => {
  it('resumes checkpointed shards after their checkpoint, skips finished ones, starts the rest at their trim horizon', () => {
    expect(
      ready({
        shards: [closed('a'), closed('b', 'a'), open('c', 'b'), open('d')],
        checkpoints: new Map([
          ['a', finished],
          ['b', at('000000000000000000010')],
        ]),
        startingPosition: 'LATEST', // ignored: the consumer has checkpoints
      }),
    ).toEqual({
      read: {
        b: { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: '000000000000000000010' },
        c: { type: 'TRIM_HORIZON' },
        d: { type: 'TRIM_HORIZON' },
      },
      markFinished: [],
      finished: ['a'],
    });
  });

  it('fails with ChangeFeedTrimmedError when a checkpointed shard left the stream (confirmed)', () => {
    const input = { shards: [open('b', 'a')], checkpoints: new Map([['a', at('000000000000000000007')]]) };
    expect(plan(input)).toEqual({
      kind: 'confirm',
      shards: [{ shardId: 'a', position: { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: '000000000000000000007' } }],
    });
    const attempt = () => plan({ ...input, missing: new Map([['a', 'gone']]) });
    expect(attempt).toThrow(ChangeFeedTrimmedError);
    expect(attempt).toThrow(expect.objectContaining({ shardId: 'a', sequenceNumber: '000000000000000000007', streamArn }));
  });

  it('fails when an unread shard’s parent left the stream without being finished', () => {
    const input = { shards: [open('c', 'b')], checkpoints: new Map([['x', finished]]) };
    expect(plan(input).kind).toBe('confirm');
    expect(() => plan({ ...input, missing: new Map([['b', 'gone']]) })).toThrow(
      expect.objectContaining({ name: 'ChangeFeedTrimmedError', shardId: 'b', sequenceNumber: undefined }),
    );
  });

  it('accepts a gone parent that was finished, and a gone parent of a shard already started', () => {
    expect(
      ready({
        shards: [open('b', 'a'), open('d', 'c')],
        checkpoints: new Map([
          ['a', finished],
          ['d', at('000000000000000000003')],
        ]),
      }).read,
    ).toEqual({ b: { type: 'TRIM_HORIZON' }, d: { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: '000000000000000000003' } });
  });

  it('reads a checkpointed shard missing from the describes when GetShardIterator finds it after all', () => {
    const result = ready({ shards: [], checkpoints: new Map([['a', at('000000000000000000005')]]), missing: new Map([['a', 'present']]) });
    expect(result.read).toEqual({ a: { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: '000000000000000000005' } });
  });

  it('reports a shard read to its end whose finished checkpoint was never written, once it has left the stream', () => {
    expect(() =>
      plan({ shards: [open('b', 'a')], checkpoints: new Map([['a', at('000000000000000000009')]]), missing: new Map([['a', 'gone']]) }),
    ).toThrow(ChangeFeedTrimmedError);
  });
});

describe('lineage while running', () => {
  it('starts a shard only when its parent is no longer pending', () => {
    expect(canStart(open('b', 'a'), new Set(['a', 'b']))).toBe(false);
    expect(canStart(open('b', 'a'), new Set(['b']))).toBe(true); // finished or gone
    expect(canStart(open('a'), new Set(['a']))).toBe(true);
  });

  it('follows a split: both children wait for the parent, then start together; a grandchild waits for its own parent', () => {
    const graph = [closed('p'), closed('c1', 'p'), open('c2', 'p'), open('g', 'c1')];
    const startable = (pending: string[]) =>
      graph.filter((shard) => pending.includes(shard.shardId) && canStart(shard, new Set(pending))).map((s) => s.shardId);
    expect(startable(['p', 'c1', 'c2', 'g'])).toEqual(['p']);
    expect(startable(['c1', 'c2', 'g'])).toEqual(['c1', 'c2']);
    expect(startable(['c2', 'g'])).toEqual(['c2', 'g']);
  });

  it('finds new shards, and positions them after a checkpoint or at the trim horizon', () => {
    const known = new Set(['a', 'b']);
    expect(newShards([open('a'), open('b'), open('c', 'b')], (id) => known.has(id))).toEqual([open('c', 'b')]);
    expect(discoveredPosition(undefined)).toEqual({ type: 'TRIM_HORIZON' });
    expect(discoveredPosition(finished)).toBeUndefined();
    expect(discoveredPosition(at('1'))).toEqual({ type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: '1' });
  });

  it('ends only when the stream is disabled and every shard is finished', () => {
    const shards = [closed('a'), closed('b', 'a')];
    expect(streamEnded('DISABLED', shards, new Set(['a', 'b']), 0)).toBe(true);
    expect(streamEnded('DISABLED', shards, new Set(['a']), 0)).toBe(false);
    expect(streamEnded('ENABLED', shards, new Set(['a', 'b']), 0)).toBe(false); // a child may not be listed yet
    expect(streamEnded('DISABLED', shards, new Set(['a', 'b']), 1)).toBe(false);
  });

  it('merges describes and reads SDK shards', () => {
    expect(mergeShards([open('a'), open('b')], [closed('a')])).toEqual([closed('a'), open('b')]);
    expect(
      toShardInfo({ ShardId: 's', ParentShardId: 'p', SequenceNumberRange: { StartingSequenceNumber: '1', EndingSequenceNumber: '9' } }),
    ).toEqual(closed('s', 'p'));
    expect(toShardInfo({})).toBeUndefined();
  });

  it('reads a simulated stream with splits, a gone parent and a late-listed shard in lineage order', () => {
    // x is gone (it predates the consumer); p split into c1 and c2; c1 rolled over into g, which the
    // first describe did not list yet.
    const firstDescribe = [open('r'), closed('p', 'x'), closed('c1', 'p'), open('c2', 'p')];
    const later = [...firstDescribe, open('g', 'c1')];
    const first = planStart({ streamArn, shards: firstDescribe, checkpoints: new Map(), startingPosition: 'TRIM_HORIZON' });
    expect(first).toEqual({ kind: 'confirm', shards: [{ shardId: 'x', position: { type: 'TRIM_HORIZON' } }] });
    const start = planStart({
      streamArn,
      shards: firstDescribe,
      checkpoints: new Map(),
      startingPosition: 'TRIM_HORIZON',
      missing: new Map([['x', 'gone']]),
    });
    if (start.kind !== 'ready') throw new Error('not ready');
    expect(start.markFinished).toEqual(['x']);

    const pending = new Map(start.read.map((shard) => [shard.shardId, shard as ShardInfo]));
    const done: string[] = [];
    while (pending.size > 0) {
      const wave = [...pending.values()].filter((shard) => canStart(shard, new Set(pending.keys())));
      expect(wave.length).toBeGreaterThan(0);
      for (const shard of wave) {
        pending.delete(shard.shardId);
        done.push(shard.shardId);
      }
      // A drained shard's children are found by the next describe.
      for (const shard of newShards(later, (id) => pending.has(id) || done.includes(id) || id === 'x')) pending.set(shard.shardId, shard);
    }
    const order = (id: string) => done.indexOf(id);
    expect(order('p')).toBeLessThan(order('c1'));
    expect(order('p')).toBeLessThan(order('c2'));
    expect(order('c1')).toBeLessThan(order('g'));
    expect(done.sort()).toEqual(['c1', 'c2', 'g', 'p', 'r']);
    expect(streamEnded('DISABLED', later, new Set([...done, 'x']), 0)).toBe(true);
  });
});

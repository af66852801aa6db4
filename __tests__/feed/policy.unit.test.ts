import { resolveCompletion } from '../../lib/feed/completion';
import { canTakeLease, leaseWaitDelay, renewalDeadline } from '../../lib/feed/checkpoints/lease-policy';
import { Channel } from '../../lib/feed/channel';
import { classifyFailure, isRetryable } from '../../lib/feed/shards/retry';
import { Semaphore } from '../../lib/util/semaphore';
import { SharedRefresh } from '../../lib/feed/shards/shared-refresh';
import { CheckpointStoreError } from '../../lib/errors';
import { compareSequenceNumbers, judgeTrimmed } from '../../lib/feed/shards/trimmed';

describe('resolveCompletion (Lambda’s partial batch response contract)', () => {
  const batch = ['01', '02', '03', '04'];

  it('checkpoints at the last record when nothing failed', () => {
    expect(resolveCompletion(batch, { batchItemFailures: [] })).toEqual({ kind: 'all', checkpoint: '04' });
  });

  it('checkpoints before the earliest failed record and re-reads from it, whatever the order of failures', () => {
    expect(resolveCompletion(batch, { batchItemFailures: [{ itemIdentifier: '04' }, { itemIdentifier: '02' }] })).toEqual({
      kind: 'partial',
      checkpoint: '01',
      retryFrom: '02',
    });
  });

  it('checkpoints nothing when the first record failed', () => {
    expect(resolveCompletion(batch, { batchItemFailures: [{ itemIdentifier: '01' }] })).toEqual({
      kind: 'partial',
      checkpoint: undefined,
      retryFrom: '01',
    });
  });

  it('fails the whole batch for an identifier naming no record of it', () => {
    expect(resolveCompletion(batch, { batchItemFailures: [{ itemIdentifier: '03' }, { itemIdentifier: '99' }] })).toEqual({
      kind: 'batch',
      retryFrom: '01',
      unknownIdentifiers: ['99'],
    });
  });
});

describe('lease expiry', () => {
  it('lets a lease be taken when absent, lapsed or already ours', () => {
    expect(canTakeLease(undefined, 'me', 100)).toBe(true);
    expect(canTakeLease({ owner: 'me', expiresAt: 500 }, 'me', 100)).toBe(true);
    expect(canTakeLease({ owner: 'other', expiresAt: 500 }, 'me', 100)).toBe(false);
    expect(canTakeLease({ owner: 'other', expiresAt: 500 }, 'me', 500)).toBe(true);
  });

  it('stops retrying a renewal renewEvery before the lease lapses', () => {
    expect(renewalDeadline(30_000, 10_000)).toBe(20_000);
  });

  it('waits for a held lease until it lapses, at most one renewal period', () => {
    expect(leaseWaitDelay({ owner: 'a', expiresAt: 1_400 }, 1_000, 10_000)).toBe(405);
    expect(leaseWaitDelay({ owner: 'a', expiresAt: 60_000 }, 1_000, 10_000)).toBe(10_000);
    expect(leaseWaitDelay(undefined, 1_000, 10_000)).toBe(10);
  });
});

describe('failure classification', () => {
  const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name }, extra);

  it('retries throttling, internal and network errors; recognises expired iterators and lost records', () => {
    for (const name of ['LimitExceededException', 'ThrottlingException', 'InternalServerError'])
      expect(classifyFailure(named(name))).toBe('retryable');
    expect(classifyFailure(named('Error', { code: 'ECONNRESET' }))).toBe('retryable');
    expect(classifyFailure(named('SomethingElse', { $metadata: { httpStatusCode: 503 } }))).toBe('retryable');
    expect(classifyFailure(named('ExpiredIteratorException'))).toBe('expiredIterator');
    expect(classifyFailure(named('TrimmedDataAccessException'))).toBe('trimmed');
    expect(classifyFailure(named('ResourceNotFoundException'))).toBe('notFound');
    expect(classifyFailure(named('AccessDeniedException'))).toBe('fatal');
    expect(classifyFailure('not an error')).toBe('fatal');
  });

  it('looks through a store error to its cause', () => {
    expect(isRetryable(new CheckpointStoreError('x', { cause: named('ProvisionedThroughputExceededException') }))).toBe(true);
    expect(isRetryable(new CheckpointStoreError('x', { cause: named('ValidationException') }))).toBe(false);
  });
});

describe('judgeTrimmed (a TrimmedDataAccessException judged by evidence)', () => {
  const after = (sequenceNumber: string) => ({ type: 'AFTER_SEQUENCE_NUMBER' as const, sequenceNumber });
  const at = (sequenceNumber: string) => ({ type: 'AT_SEQUENCE_NUMBER' as const, sequenceNumber });

  it('reads from the trim horizon when nothing was read yet (TRIM_HORIZON or LATEST), whatever the shard holds', () => {
    for (const type of ['TRIM_HORIZON', 'LATEST'] as const) {
      for (const oldest of [undefined, '5'])
        expect(judgeTrimmed({ type }, oldest)).toMatchObject({ kind: 'retake', position: { type: 'TRIM_HORIZON' } });
    }
  });

  it('reads again from a checkpoint the shard still holds a record at or before', () => {
    expect(judgeTrimmed(after('42'), '42')).toMatchObject({ kind: 'retake', position: after('42') });
    expect(judgeTrimmed(after('42'), '7')).toMatchObject({ kind: 'retake', position: after('42') });
    expect(judgeTrimmed(at('42'), '41')).toMatchObject({ kind: 'retake', position: at('42') });
  });

  it('declares records lost when the oldest record is newer than the position, or the shard holds none', () => {
    expect(judgeTrimmed(after('42'), '43')).toMatchObject({
      kind: 'lost',
      detail: expect.stringMatching(/oldest record .* 43, is newer than .* 42/),
    });
    expect(judgeTrimmed(at('42'), '100')).toMatchObject({ kind: 'lost' });
    expect(judgeTrimmed(after('42'), undefined)).toMatchObject({ kind: 'lost', detail: expect.stringMatching(/holds no record/) });
  });

  it('compares sequence numbers as numbers of any length', () => {
    expect(compareSequenceNumbers('9', '10')).toBe(-1);
    expect(compareSequenceNumbers('000000000000000000010', '10')).toBe(0);
    expect(compareSequenceNumbers('100000000000000000000000000000000000001', '99999999999999999999999')).toBe(1);
  });
});

describe('Semaphore', () => {
  it('bounds calls in flight and serves waiters in order', async () => {
    const semaphore = new Semaphore(2);
    let inFlight = 0;
    let most = 0;
    const order: number[] = [];
    const task = (id: number) =>
      semaphore.use(async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(id);
        inFlight--;
      });
    await Promise.all([1, 2, 3, 4, 5].map(task));
    expect(most).toBe(2);
    expect(order.slice(2)).toEqual([3, 4, 5]);
  });

  it('gives up waiting when the signal aborts', async () => {
    const semaphore = new Semaphore(1);
    let release!: () => void;
    const held = semaphore.use(() => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    const waiting = semaphore.use(async () => 'never', controller.signal);
    controller.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    expect(semaphore.waiting).toBe(0);
    release();
    await held;
    await expect(semaphore.use(async () => 'next')).resolves.toBe('next');
  });
});

describe('Channel', () => {
  it('hands items over in order, then reports a failure or the end', async () => {
    const channel = new Channel<number>();
    const waiting = channel.take();
    channel.push(1);
    channel.push(2);
    await expect(waiting).resolves.toEqual({ value: 1, done: false });
    await expect(channel.take()).resolves.toEqual({ value: 2, done: false });
    channel.fail(new Error('boom'));
    channel.fail(new Error('second'));
    await expect(channel.take()).rejects.toThrow('boom');

    const closing = new Channel<number>();
    const pending = closing.take();
    closing.close();
    await expect(pending).resolves.toEqual({ value: undefined, done: true });
  });
});

describe('SharedRefresh (the describe fallback for drained shards)', () => {
  function fakeClock() {
    let now = 0;
    const sleeps: number[] = [];
    return {
      sleeps,
      advance: (ms: number) => (now += ms),
      clock: {
        now: () => now,
        sleep: async (ms: number) => {
          sleeps.push(ms);
          now += ms;
        },
      },
    };
  }

  it('shares one describe between every shard drained meanwhile, and runs at most one per interval', async () => {
    const { clock, sleeps, advance } = fakeClock();
    let describes = 0;
    const refresh = new SharedRefresh(async () => ++describes, 100, new AbortController().signal, clock);
    refresh.markDone(0);
    advance(30);
    const [a, b, c] = await Promise.all([refresh.run(), refresh.run(), refresh.run()]);
    expect([a, b, c]).toEqual([1, 1, 1]);
    expect(sleeps).toEqual([70]);
    advance(500);
    await expect(refresh.run()).resolves.toBe(2);
    expect(sleeps).toEqual([70]);
  });
});

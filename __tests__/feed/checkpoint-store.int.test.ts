import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { TableNotFoundError } from 'dynafold';
import { MemoryCheckpointStore, type CheckpointStore, DynamoCheckpointStore } from 'dynafold/feed';
import { testClient } from '../support/dynamo';
import { createCheckpointStore } from './support';

const client = testClient();
afterAll(() => client.destroy());

const key = { consumer: 'app', streamArn: 'arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/1' };
const other = { consumer: 'other', streamArn: key.streamArn };

function contract(name: string, makeStore: () => Promise<CheckpointStore>) {
  describe(`${name} (CheckpointStore contract)`, () => {
    it('keeps sequence and finished checkpoints per consumer and stream, and clears them', async () => {
      const store = await makeStore();
      expect((await store.getCheckpoints(key)).size).toBe(0);
      await store.putCheckpoint(key, 'shard-1', '000000000000000000005');
      await store.putCheckpoint(key, 'shard-1', '000000000000000000009');
      await store.putFinished(key, 'shard-0');
      await store.putCheckpoint(other, 'shard-1', '000000000000000000001');
      expect(await store.getCheckpoints(key)).toEqual(
        new Map([
          ['shard-0', { kind: 'finished' }],
          ['shard-1', { kind: 'sequence', sequenceNumber: '000000000000000000009' }],
        ]),
      );
      await store.clearCheckpoints(key);
      expect((await store.getCheckpoints(key)).size).toBe(0);
      expect((await store.getCheckpoints(other)).size).toBe(1);
    });

    it('takes, renews and releases the lease with conditional writes', async () => {
      const store = await makeStore();
      await expect(store.acquireLease(key, { owner: 'a', durationMs: 1_000, now: 10_000 })).resolves.toEqual({ acquired: true, expiresAt: 11_000 });
      await expect(store.acquireLease(key, { owner: 'b', durationMs: 1_000, now: 10_500 })).resolves.toEqual({
        acquired: false,
        holder: { owner: 'a', expiresAt: 11_000 },
      });
      await expect(store.acquireLease(key, { owner: 'a', durationMs: 1_000, now: 10_500 })).resolves.toEqual({ acquired: true, expiresAt: 11_500 });
      await expect(store.renewLease(key, { owner: 'a', durationMs: 1_000, now: 11_000 })).resolves.toEqual({ acquired: true, expiresAt: 12_000 });
      await expect(store.renewLease(key, { owner: 'b', durationMs: 1_000, now: 11_000 })).resolves.toMatchObject({ acquired: false });
      // Lapsed: another owner takes it, and the first can no longer renew.
      await expect(store.acquireLease(key, { owner: 'b', durationMs: 1_000, now: 12_000 })).resolves.toEqual({ acquired: true, expiresAt: 13_000 });
      await expect(store.renewLease(key, { owner: 'a', durationMs: 1_000, now: 12_100 })).resolves.toEqual({
        acquired: false,
        holder: { owner: 'b', expiresAt: 13_000 },
      });
      await store.releaseLease(key, 'a'); // not a's: left alone
      expect(await store.getLease(key)).toEqual({ owner: 'b', expiresAt: 13_000 });
      await store.releaseLease(key, 'b');
      expect(await store.getLease(key)).toBeUndefined();
      await expect(store.renewLease(key, { owner: 'b', durationMs: 1_000, now: 12_200 })).resolves.toEqual({ acquired: false, holder: undefined });
    });
  });
}

contract('MemoryCheckpointStore', async () => new MemoryCheckpointStore());
contract('DynamoCheckpointStore', async () => (await createCheckpointStore(client)).store);

describe('DynamoCheckpointStore layout', () => {
  it('writes the documented items: finished shards with a ttl, the lease with owner and expiresAt', async () => {
    const { table, store } = await createCheckpointStore(client);
    const before = Date.now();
    await store.putFinished(key, 'shard-9');
    await store.putCheckpoint(key, 'shard-8', '000000000000000000042');
    await store.acquireLease(key, { owner: 'me', durationMs: 5_000, now: before });
    const get = async (sk: string) =>
      (await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: `app#${key.streamArn}` }, sk: { S: sk } } }))).Item;

    const finished = await get('shard#shard-9');
    expect(finished?.['finished']).toEqual({ BOOL: true });
    const ttl = Number(finished?.['ttl']?.N);
    expect(ttl).toBeGreaterThanOrEqual(Math.floor((before + 48 * 3_600_000) / 1000));
    expect(ttl).toBeLessThan(Math.ceil((Date.now() + 48 * 3_600_000) / 1000) + 1);
    expect(Number(finished?.['updatedAt']?.N)).toBeGreaterThanOrEqual(before);

    const sequence = await get('shard#shard-8');
    expect(sequence?.['sequenceNumber']).toEqual({ S: '000000000000000000042' });
    expect(sequence?.['ttl']).toBeUndefined();

    expect(await get('lease')).toMatchObject({ owner: { S: 'me' }, expiresAt: { N: String(before + 5_000) } });
  });

  it('names a missing table in TableNotFoundError, with the SDK error as cause', async () => {
    const store = new DynamoCheckpointStore({ client, table: 'no-such-table' });
    const attempt = store.getCheckpoints(key);
    await expect(attempt).rejects.toBeInstanceOf(TableNotFoundError);
    await expect(attempt).rejects.toMatchObject({ table: 'no-such-table', cause: expect.objectContaining({ name: 'ResourceNotFoundException' }) });
  });
});

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { contendedRound } from '../../bench/peers/append';
import { attachBilling } from '../../bench/cost/billed';
import { ItemBook } from '../../bench/cost/item-book';
import { capacity } from '../../bench/peers/capacity';
import type { Metered } from '../../bench/peers/measure';
import type { Peer } from '../../bench/peers/peer';
import { meter } from '../../bench/support/meter';

/** A peer whose every contended append meets `conflictsEach` conflicts, answered after a turn of the event loop. */
function conflictingPeer(client: DynamoDBClient, conflictsEach: number): Peer {
  const unused = () => Promise.reject(new Error('not part of the contended round'));
  return {
    name: 'conflicting',
    client,
    destroy: () => client.destroy(),
    streamArn: '',
    append: unused,
    command: unused,
    appendContended: () => new Promise((resolve) => setImmediate(() => resolve(conflictsEach))),
    load: unused,
    loadWithSnapshot: undefined,
    prepareSnapshot: unused,
    projector: unused,
  };
}

describe('the contended round', () => {
  test('counts the conflicts of every writer, however their appends interleave', async () => {
    // No request is sent: the meters only add middleware to the client.
    const client = new DynamoDBClient({ region: 'us-east-1' });
    const m: Metered = {
      peer: conflictingPeer(client, 3),
      meter: meter(client),
      capacity: capacity(client),
      billed: attachBilling(client, new ItemBook()),
    };
    try {
      const round = await contendedRound(m, 0, 10, 2);
      expect(round.events).toBe(20);
      expect(round.conflicts).toBe(3 * 20);
    } finally {
      m.peer.destroy();
    }
  });
});

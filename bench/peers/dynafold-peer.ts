import { evolveSummary, initialSummary, newEvents, orderTables, summaries, summaryProjection } from '../support/orders';
import { clients, type Endpoint } from '../support/local';
import type { Peer } from './peer';
import { countWrong } from './verify';

const SNAPSHOT = { name: 'summary' };

/**
 * dynafold: `EventStream.append` with `expectedVersion`, `execute` for commands and contended writers (the
 * decider path, as equinox-js's `transact`), `load` (with a snapshot), `Projection.processBatch`.
 */
export async function dynafoldPeer(endpoint: Endpoint, prefix: string): Promise<Peer> {
  const { client, destroy } = clients(endpoint);
  const { events, views, stream } = await orderTables(client, `${prefix}-dynafold`);
  const fold = (orderId: string) => ({ initial: initialSummary(orderId), evolve: evolveSummary });
  return {
    name: 'dynafold',
    client,
    destroy,
    streamArn: events.streamArn,
    append: async (orderId, expectedVersion, count) => {
      await stream.append({ orderId }, newEvents(expectedVersion + 1, count), { expectedVersion });
    },
    command: async (orderId) => {
      await stream.execute(orderId, { ...fold(orderId), decide: (_state, version) => newEvents(version + 1, 1) });
    },
    appendContended: async (orderId) => {
      // Each decision after the first follows a lost race. As many tries as equinox-js's `transact` is given.
      let decisions = 0;
      const decide = (_state: unknown, version: number) => (decisions++, newEvents(version + 1, 1));
      await stream.execute(orderId, { ...fold(orderId), decide }, { retry: { attempts: 1_000 } });
      return decisions - 1;
    },
    // At the peers' consistency: both read eventually consistent (dynafold's default is strong, at twice the units).
    load: async (orderId) => (await stream.load(orderId, fold(orderId), { consistent: false })).state,
    loadWithSnapshot: async (orderId) => (await stream.load(orderId, fold(orderId), { snapshot: SNAPSHOT, consistent: false })).state,
    prepareSnapshot: async (orderId) => {
      const { state, version } = await stream.load(orderId, fold(orderId));
      await stream.saveSnapshot(orderId, { version, state }, SNAPSHOT.name);
    },
    projector: async (run) => {
      const model = summaries(client, views, `Peer${run}`);
      const projection = summaryProjection(stream, model);
      return {
        projectsTo: 'row',
        project: async (batch) => (await projection.processBatch(batch, { source: 'lambda' })).response,
        wrong: (expected) => countWrong(expected, (orderId) => model.get({ orderId }, { consistent: true })),
      };
    },
  };
}

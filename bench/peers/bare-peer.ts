import { PutCommand, QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { eventsOfCommit, isConditionFailure, type RawEvent, ViewRows } from '../baselines/view-rows';
import { clients, type Endpoint } from '../support/local';
import { evolveSummary, initialSummary, newEvents, orderTables, type Summary } from '../support/orders';
import { bareProjector } from './bare-projector';
import type { Peer } from './peer';

const STREAM = 'Order';
const SNAPSHOT_KEY = 'e$snapshot#summary';
/** Commits a load from a snapshot reads with it, as dynafold's default (`snapshotReadAhead` 4, and the snapshot). */
const SNAPSHOT_PAGE = 5;

const pk = (orderId: string) => `${STREAM}#${orderId}`;
const sk = (version: number) => `e#${String(version).padStart(10, '0')}`;

/** The commit of `events` from version `first`, as dynafold stores it: one event at the top level, several in a list. */
function commitItem(orderId: string, first: number, events: ReturnType<typeof newEvents>): Record<string, unknown> {
  const item = { pk: pk(orderId), sk: sk(first), _df: STREAM, ts: Date.now(), ap: Math.random().toString(36).slice(2, 10) };
  const [only] = events;
  return events.length === 1 && only !== undefined ? { ...item, ...only } : { ...item, count: events.length, events };
}

/** The commits from version `from` (to the head, or to `to`), ascending, paged, folded onto `state`. */
async function foldRange(
  documents: DynamoDBDocumentClient,
  table: string,
  orderId: string,
  state: Summary,
  from: number,
  consistent: boolean,
  to = 9_999_999_999,
) {
  let start: Record<string, unknown> | undefined;
  let folded = state;
  do {
    const input: QueryCommandInput = {
      TableName: table,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': pk(orderId), ':from': sk(from), ':to': sk(to) },
      ConsistentRead: consistent,
      ExclusiveStartKey: start,
    };
    const page = await documents.send(new QueryCommand(input));
    for (const item of page.Items ?? []) for (const event of eventsOfCommit(item)) folded = evolveSummary(folded, event);
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return folded;
}

/**
 * The same requests as dynafold's, written by hand with the document client on dynafold's table layout, with
 * nothing else: no validation, no spans, no decoding beyond reading the attributes, no backoff. An append is
 * one conditional PutItem; a command an eventually consistent Query and a PutItem; a contended writer goes on
 * from the commit that beat it (`ReturnValuesOnConditionCheckFailure`), reading the events after it from the
 * second loss on; a load from a snapshot one Query of the snapshot and the newest commits. The CPU per
 * operation dynafold is held to (within 1.3×), and the events/s of its requests with nothing around them.
 */
export async function barePeer(endpoint: Endpoint, prefix: string): Promise<Peer> {
  const { client, documents, destroy } = clients(endpoint);
  const { events, views } = await orderTables(client, `${prefix}-bare`);
  const table = events.name;
  const load = (orderId: string, consistent = false) => foldRange(documents, table, orderId, initialSummary(orderId), 1, consistent);
  /** Puts the commit of `count` events after `version`; a lost race answers the commit that won (its events), undefined otherwise. */
  const put = async (orderId: string, version: number, count: number): Promise<RawEvent[] | 'appended'> => {
    try {
      await documents.send(
        new PutCommand({
          TableName: table,
          Item: commitItem(orderId, version + 1, newEvents(version + 1, count)),
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': 'pk' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'appended';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const item = (error as { Item?: Record<string, AttributeValue> }).Item;
      return item === undefined ? [] : eventsOfCommit(unmarshall(item));
    }
  };
  return {
    name: 'bare SDK',
    client,
    destroy,
    streamArn: events.streamArn,
    append: async (orderId, expectedVersion, count) => {
      if ((await put(orderId, expectedVersion, count)) !== 'appended') throw new Error(`bare SDK: ${orderId} is past ${expectedVersion}`);
    },
    command: async (orderId) => {
      for (let state = await load(orderId); ; state = await load(orderId, true)) {
        if ((await put(orderId, state.version, 1)) === 'appended') return;
      }
    },
    appendContended: async (orderId) => {
      let state = await load(orderId);
      for (let conflicts = 0; ; conflicts++) {
        const outcome = await put(orderId, state.version, 1);
        if (outcome === 'appended') return conflicts;
        state = outcome.reduce(evolveSummary, state);
        // Lost again: the head moves faster than a commit a try, so read what followed the winner.
        if (conflicts > 0 || outcome.length === 0) state = await foldRange(documents, table, orderId, state, state.version + 1, true);
      }
    },
    load: (orderId) => load(orderId),
    loadWithSnapshot: async (orderId) => {
      const page = await documents.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :snapshot',
          ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
          ExpressionAttributeValues: { ':pk': pk(orderId), ':first': sk(1), ':snapshot': SNAPSHOT_KEY },
          ScanIndexForward: false,
          ConsistentRead: false,
          Limit: SNAPSHOT_PAGE,
        }),
      );
      const items = page.Items ?? [];
      const stored = items[0]?.['sk'] === SNAPSHOT_KEY ? items[0] : undefined;
      const start = stored === undefined ? initialSummary(orderId) : (JSON.parse(String(stored['state'])) as Summary);
      const commits = items.filter((item) => item !== stored).reverse();
      const firstRead = Number(String(commits[0]?.['sk'] ?? sk(1)).slice(2));
      // The page did not reach the snapshot's version: the commits in between come ascending.
      const before = firstRead > start.version + 1 && page.LastEvaluatedKey !== undefined;
      let state = before ? await foldRange(documents, table, orderId, start, start.version + 1, false, firstRead - 1) : start;
      for (const commit of commits)
        for (const event of eventsOfCommit(commit)) if (event.version > state.version) state = evolveSummary(state, event);
      return state;
    },
    prepareSnapshot: async (orderId) => {
      const state = await load(orderId, true);
      await documents.send(
        new PutCommand({
          TableName: table,
          Item: {
            pk: pk(orderId),
            sk: SNAPSHOT_KEY,
            _dfSnapshot: STREAM,
            version: state.version,
            state: JSON.stringify(state),
            timestamp: new Date().toISOString(),
          },
        }),
      );
    },
    projector: async (run) => bareProjector(documents, table, new ViewRows(documents, views, `Bare${run}`)),
  };
}

import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient, type PutCommandInput, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  asRequestError,
  cancellationCodes,
  documentClient,
  getItem,
  landedDespite,
  newWriteId,
  request,
  sameItem,
  sendConditional,
  sendPutItem,
  sendQuery,
  withSignal,
  type OwnItem,
} from '../../dynamo';
import { withCapacity } from '../../telemetry';
import {
  commitEndOf,
  commitFirstVersionOf,
  fromCommitItem,
  fromSnapshotItem,
  isCommitOf,
  snapshotKey,
  type EventCodec,
  type VersionRange,
} from '../codec';
import { Layout, MAX_VERSION, SentinelAttributes, partitionKeyOf } from '../layout';
import type { Snapshot, StreamEvent } from '../types';
import type { TransactPut } from '../inline';
import { commitHoldingQuery, commitsQuery, headQuery, snapshotPageQuery } from './commit-queries';
import { cancelledOutcome, transactItems, type AppendOutcome, type CommitTransaction } from './commit-transaction';
import { instancePages, type InstancePage, type InstanceSegment } from './instance-scan';
import { loadKeysFor } from './keys-before-decoding';
import { KnownCommitEnds } from './known-commit-ends';
import { snapshotPageOf, type SnapshotPage } from './snapshot-page';
import { SnapshotReadAhead } from './snapshot-read-ahead';

type Item = Record<string, unknown>;

/** How a read of commits pages: commits per page, consistency, and what is known of the version before its range. */
export interface Reading {
  readonly pageSize: number;
  readonly consistent: boolean;
  /** The version before the range is known to end a commit (or is 0): no commit that starts before the range holds its first version. */
  readonly afterCommitEnd: boolean;
  readonly signal: AbortSignal | undefined;
}

/** Where a snapshot item is: its name and its sort key (today's, or where 0.2 kept it). */
export interface SnapshotSlot {
  readonly name: string;
  readonly sortKey: string;
}

/** How a conditional Put of one commit ended; a lost race names the commit that won, when DynamoDB returned it, and its end. */
export type CommitPutOutcome =
  { readonly kind: 'appended' } | { readonly kind: 'conflict'; readonly winner: Item | undefined; readonly winnerEnd: number | undefined };

/**
 * The commit layer of one stream: every request on its events table goes through here, reads and writes of
 * commits, snapshots and idempotency sentinels, so what must hold for all of them is said once.
 * - Keys before decoding: the subjects' keys of what a read returns are loaded before any of it is decoded
 *   (`loadKeysFor`), in one read per page.
 * - Decoding and trimming: commits come back as their events, those of the range asked for only.
 * - Remembered ends: a version learned to end a commit (the head, a read to the head, an append's own
 *   commit, the commit that beat one, a proof read, a sentinel's) is remembered (`KnownCommitEnds`), so an
 *   append at it needs no proof read.
 * - The append's identity: every try of an append stamps its commits with one id, and a commit that carries
 *   it is the append's own, whatever the answer that was lost said (`isCommitOf`).
 */
export class CommitLog {
  private readonly documents: DynamoDBDocumentClient;
  private readonly ends: KnownCommitEnds;
  private readonly readAhead: SnapshotReadAhead;

  constructor(
    readonly table: string,
    readonly codec: EventCodec,
    client: DynamoDBClient,
    rememberedVersions: number,
  ) {
    // Every request tells the span of the operation that sends it what it consumed.
    this.documents = withCapacity(documentClient(client));
    this.ends = new KnownCommitEnds(rememberedVersions);
    this.readAhead = new SnapshotReadAhead(rememberedVersions, this.ends);
  }

  /** A new append's id: every try of the append stamps its commits with it (see `Layout.appendId`). */
  newAppendId(): string {
    return newWriteId();
  }

  /** The stream instance's latest version (0 with no events), strongly consistent, from the latest commit's keys and count. */
  async head(streamId: string, signal: AbortSignal | undefined): Promise<number> {
    const page = await this.query(headQuery(this.table, this.partitionKey(streamId)), signal);
    const latest = page.Items?.[0];
    const head = latest === undefined ? 0 : commitEndOf(this.codec, latest);
    this.learned(streamId, head);
    return head;
  }

  /**
   * The events of `range` in version order, a page of commits at a time, so a stream of any length is read
   * in bounded memory; without `toVersion`, to the head (and the head is learned). Each commit is decoded
   * as it is reached.
   */
  async *events(
    streamId: string,
    range: { readonly fromVersion: number; readonly toVersion?: number | undefined },
    reading: Reading,
  ): AsyncGenerator<StreamEvent> {
    let last: number | undefined;
    for await (const { items, trim } of this.commitPages(streamId, range, reading)) {
      for (const item of items) {
        for (const event of fromCommitItem(this.codec, item, trim)) {
          last = event.version;
          yield event;
        }
      }
    }
    this.readTo(streamId, range, last);
  }

  /**
   * The events of `range` as `events` reads them, a page's in one array: a fold goes through a page without
   * a turn of the promise machinery per event, as an async generator's every yield takes. A broken commit
   * fails its page before any of it is folded (a fold fails whole either way).
   */
  async *eventPages(
    streamId: string,
    range: { readonly fromVersion: number; readonly toVersion?: number | undefined },
    reading: Reading,
  ): AsyncGenerator<StreamEvent[]> {
    let last: number | undefined;
    for await (const { items, trim } of this.commitPages(streamId, range, reading)) {
      const events: StreamEvent[] = [];
      for (const item of items) for (const event of fromCommitItem(this.codec, item, trim)) events.push(event);
      const newest = events.at(-1);
      if (newest === undefined) continue;
      last = newest.version;
      yield events;
    }
    this.readTo(streamId, range, last);
  }

  /**
   * The commits that hold `range`, in version order, a Query's page at a time with their subjects' keys
   * loaded. Each Query asks for one commit more than a page: when it comes, another page follows (read
   * again as that page's first); when it doesn't, the range is exhausted with no empty Query. A range that
   * starts inside a commit reads that commit with one more Query (unless `afterCommitEnd`); the page's
   * `trim` cuts the commits at the range's bounds.
   */
  private async *commitPages(
    streamId: string,
    range: { readonly fromVersion: number; readonly toVersion?: number | undefined },
    reading: Reading,
  ): AsyncGenerator<{ readonly items: ReadonlyArray<Item>; readonly trim: VersionRange }> {
    const toVersion = range.toVersion ?? MAX_VERSION;
    for (let from = Math.max(1, range.fromVersion), first = true; from <= toVersion; first = false) {
      const trim = { fromVersion: from, toVersion };
      const page = await this.query(
        commitsQuery(this.table, this.partitionKey(streamId), trim, { consistent: reading.consistent, limit: reading.pageSize + 1 }),
        reading.signal,
      );
      const found = page.Items ?? [];
      const items = found.slice(0, reading.pageSize);
      if (first && from > 1 && !reading.afterCommitEnd && (found[0] === undefined || commitFirstVersionOf(this.codec, found[0]) > from)) {
        const holding = await this.commitHolding(streamId, from, reading.consistent, true, reading.signal);
        if (holding?.item !== undefined) items.unshift(holding.item);
      }
      await this.loadKeys(items, reading.signal);
      yield { items, trim };
      // Fewer commits than asked for and no `LastEvaluatedKey`: the range is exhausted. With one, DynamoDB
      // stopped at 1 MB, and the page goes on after the last commit returned.
      const last = found[Math.min(found.length, reading.pageSize) - 1];
      if ((found.length <= reading.pageSize && page.LastEvaluatedKey === undefined) || last === undefined) break;
      from = commitEndOf(this.codec, last) + 1;
    }
  }

  /** A read to the head (no `toVersion`) whose last event is `last`: that version ends the newest commit. */
  private readTo(streamId: string, range: { readonly toVersion?: number | undefined }, last: number | undefined): void {
    // A read trims commits only at the bounds asked for.
    if (range.toVersion === undefined && last !== undefined) this.learned(streamId, last);
  }

  /**
   * The instance's commits newest first, each its events in version order: one strongly consistent Query of
   * one whole commit each, from the one holding the head down to version 1 or until the caller stops. A walk
   * back that stops at the first commit it wants reads each commit it passes once (a commit holds up to 400 KB).
   */
  async *commitsNewestFirst(streamId: string, signal: AbortSignal | undefined): AsyncGenerator<StreamEvent[]> {
    for (let before = MAX_VERSION; before >= 1;) {
      const holding = await this.commitHolding(streamId, before, true, true, signal);
      if (holding?.item === undefined) return;
      // The newest commit ends at the head.
      if (before === MAX_VERSION) this.learned(streamId, holding.end);
      yield await this.decodedCommit(holding.item, signal);
      before = holding.first - 1;
    }
  }

  /**
   * The snapshot at `slot` and the newest events in ONE Query, newest first (see `snapshotPageQuery`): the
   * snapshot and as many commits as the instance's last load suggests, `readAhead` at most (see
   * `SnapshotReadAhead`). The newest event read ends the newest commit.
   */
  async snapshotPage(
    streamId: string,
    slot: SnapshotSlot,
    reading: { readonly readAhead: number; readonly consistent: boolean; readonly signal: AbortSignal | undefined },
  ): Promise<SnapshotPage> {
    const limit = 1 + this.readAhead.commits(streamId, slot.sortKey, reading.readAhead);
    const page = await this.query(
      snapshotPageQuery(this.table, this.partitionKey(streamId), slot.sortKey, { consistent: reading.consistent, limit }),
      reading.signal,
    );
    const items = page.Items ?? [];
    await this.loadKeys(items, reading.signal);
    const read = snapshotPageOf(this.codec, streamId, slot, items, page.LastEvaluatedKey === undefined);
    // The newest event read ends a commit; a snapshot's version is not learned (one saved by hand may name any).
    const newest = read.newest.at(-1);
    if (newest !== undefined) this.learned(streamId, newest.version);
    this.readAhead.found(streamId, slot.sortKey, read, reading.readAhead);
    return read;
  }

  /** The snapshot at `slot`: `undefined` when none is stored there, `forgotten` when it is sealed for a forgotten subject. */
  async snapshot(
    streamId: string,
    slot: SnapshotSlot,
    reading: { readonly consistent: boolean; readonly signal: AbortSignal | undefined },
  ): Promise<Snapshot<unknown> | 'forgotten' | undefined> {
    const item = await getItem(this.withSignal(reading.signal), this.table, snapshotKey(this.codec, streamId, slot.sortKey), reading.consistent);
    if (item === undefined) return undefined;
    await this.loadKeys([item], reading.signal);
    return fromSnapshotItem(this.codec, streamId, slot.name, item) ?? 'forgotten';
  }

  /**
   * Saves a snapshot item on `condition`; resolves whether it was written, by this call: a retry of a Put
   * whose answer was lost after it was applied finds the very item it wrote, and that counts.
   */
  async putSnapshot(
    streamId: string,
    item: Item,
    condition: Pick<PutCommandInput, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    const documents = this.withSignal(signal);
    const key = snapshotKey(this.codec, streamId, String(item[Layout.sortKey]));
    const outcome = await sendConditional(
      'PutItem',
      this.table,
      () => sendPutItem(documents, { TableName: this.table, Item: item, ...condition, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
      { isOwn: (found) => sameItem(item, found), read: () => getItem(documents, this.table, key) },
    );
    return outcome.kind === 'written';
  }

  /**
   * Whether a commit ends at `version`: the proof a caller's `expectedVersion` needs (an append there must
   * neither leave a gap nor overlap a commit). A version learned to end a commit needs no read. Else an
   * eventually consistent read that finds the commit holding `version` decides at half the units: no
   * replica holds an item that was not committed, and commits are never changed or deleted. One that finds
   * none (or only an earlier commit) may be behind, so a strongly consistent read decides.
   */
  async endsCommit(streamId: string, version: number, signal: AbortSignal | undefined): Promise<boolean> {
    if (this.ends.holds(streamId, version)) return true;
    const eventuallyConsistent = false;
    const seen = await this.commitHolding(streamId, version, eventuallyConsistent, false, signal);
    const found = seen !== undefined && seen.end >= version ? seen : await this.commitHolding(streamId, version, true, false, signal);
    const ends = found !== undefined && found.end === version;
    if (ends) this.learned(streamId, version);
    return ends;
  }

  /**
   * Writes one commit unless its first version exists: a write unit per KB where a transaction bills two. A
   * lost race answers the commit that won, so the writer can go on from it without reading the stream.
   */
  async putCommit(streamId: string, item: Item, appendId: string, signal: AbortSignal | undefined): Promise<CommitPutOutcome> {
    const documents = this.withSignal(signal);
    const put: PutCommandInput = {
      TableName: this.table,
      Item: item,
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': Layout.partitionKey },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    };
    const outcome = await sendConditional('PutItem', this.table, () => sendPutItem(documents, put), this.ownCommit(documents, appendId, item));
    if (outcome.kind === 'written') {
      this.learned(streamId, commitEndOf(this.codec, item));
      return { kind: 'appended' };
    }
    const winnerEnd = this.endOf(outcome.item);
    if (winnerEnd !== undefined) this.learned(streamId, winnerEnd);
    return { kind: 'conflict', winner: outcome.item, winnerEnd };
  }

  /**
   * Sends an append as ONE TransactWriteItems (see `transactItems`); the SDK gives it a `ClientRequestToken`,
   * so a repeat of one DynamoDB applied answers its success. A failure that is no cancellation is this
   * append's success when its first commit is there carrying its id (all or nothing: then all went in).
   */
  async transact(streamId: string, transaction: CommitTransaction, appendId: string, signal: AbortSignal | undefined): Promise<AppendOutcome> {
    const documents = this.withSignal(signal);
    const appended = () => {
      this.learned(streamId, commitEndOf(this.codec, transaction.commits.at(-1) as Item));
      return { kind: 'appended' } as const;
    };
    try {
      await documents.send(new TransactWriteCommand({ TransactItems: transactItems(this.table, transaction) }));
      return appended();
    } catch (error) {
      const tables = [this.table, ...(transaction.extras ?? []).flatMap((put) => put.TableName ?? [])];
      const codes = cancellationCodes(error);
      if (codes === undefined && (await landedDespite(error, this.ownCommit(documents, appendId, transaction.commits[0] as Item)))) return appended();
      const outcome = codes === undefined ? undefined : cancelledOutcome(codes, transaction);
      if (outcome === undefined) throw asRequestError('TransactWriteItems', tables, error);
      return outcome;
    }
  }

  /**
   * The Puts of an append's commits for a transaction the caller sends (a reaction's row write, which carries
   * its effects), conditioned as this layer's own are: on their key not existing, so versions stay contiguous.
   * The caller knows its transaction landed by what it writes beside them (a row with its write's id).
   */
  commitPuts(commits: ReadonlyArray<Item>): TransactPut[] {
    return transactItems(this.table, { commits }).map((item) => item.Put as TransactPut);
  }

  /** The idempotency sentinel at `key`, strongly consistent; the end of the append it stands for is learned. */
  async sentinel(key: Record<string, string>, streamId: string, signal: AbortSignal | undefined): Promise<Item | undefined> {
    const sentinel = await getItem(this.withSignal(signal), this.table, key);
    const end = Number(sentinel?.[SentinelAttributes.toVersion]);
    if (Number.isSafeInteger(end)) this.learned(streamId, end);
    return sentinel;
  }

  /** The events of a commit that won a race, decoded; `undefined` when it can't be (the command then loads the stream again). */
  async decodeWinner(item: Item, signal: AbortSignal | undefined): Promise<StreamEvent[] | undefined> {
    try {
      return await this.decodedCommit(item, signal);
    } catch {
      return undefined;
    }
  }

  /** A stored commit's events, decoded with the keys already loaded (see `SubjectKeys.load`). */
  decode(item: Readonly<Record<string, unknown>>): StreamEvent[] {
    return fromCommitItem(this.codec, item);
  }

  /** The instances of one segment of a parallel Scan of the events table, a page at a time (see `instancePages`). */
  instancePages(segment: InstanceSegment): AsyncGenerator<InstancePage> {
    return instancePages({ ...segment, documents: this.documents, table: this.table });
  }

  /** DynamoDB's item count of the events table (refreshed about every six hours), for estimates. */
  async itemCount(signal?: AbortSignal): Promise<number | undefined> {
    const described = await request('DescribeTable', this.table, () =>
      this.withSignal(signal).send(new DescribeTableCommand({ TableName: this.table })),
    );
    return described.Table?.ItemCount;
  }

  /** The one place a version is remembered to end a commit of `streamId`. */
  private learned(streamId: string, end: number): void {
    this.ends.remember(streamId, end);
  }

  /** The keys the personal data of `items` needs, loaded before any of them is decoded. */
  private async loadKeys(items: Iterable<Readonly<Record<string, unknown>> | undefined>, signal: AbortSignal | undefined): Promise<void> {
    const keys = this.codec.personal?.keys;
    if (keys !== undefined)
      await loadKeysFor(
        [...items].map((item) => ({ keys, item })),
        signal,
      );
  }

  /** A commit's events, once the keys of its subjects are loaded. */
  private async decodedCommit(item: Item, signal: AbortSignal | undefined): Promise<StreamEvent[]> {
    await this.loadKeys([item], signal);
    return fromCommitItem(this.codec, item);
  }

  /** The commit holding `version` (or the last before it): where it starts and ends, and the item when `whole`. */
  private async commitHolding(streamId: string, version: number, consistent: boolean, whole: boolean, signal: AbortSignal | undefined) {
    const page = await this.query(commitHoldingQuery(this.table, this.partitionKey(streamId), version, consistent, whole), signal);
    const item = page.Items?.[0];
    if (item === undefined) return undefined;
    return { first: commitFirstVersionOf(this.codec, item), end: commitEndOf(this.codec, item), ...(whole ? { item } : {}) };
  }

  /**
   * How a write knows its own commit: it carries the append's id. The SDK sent the request again after
   * DynamoDB applied it and the answer was lost (see `sendConditional`), or it gave up and the item is read.
   */
  private ownCommit(documents: DynamoDBDocumentClient, appendId: string, item: Item): OwnItem {
    const key = { [Layout.partitionKey]: item[Layout.partitionKey] as string, [Layout.sortKey]: item[Layout.sortKey] as string };
    return { isOwn: (found) => isCommitOf(found, appendId), read: () => getItem(documents, this.table, key) };
  }

  /** The last version of a commit DynamoDB returned; `undefined` for none, or one that does not read as a commit. */
  private endOf(item: Item | undefined): number | undefined {
    try {
      return item === undefined ? undefined : commitEndOf(this.codec, item);
    } catch {
      return undefined;
    }
  }

  private query(input: QueryCommandInput, signal: AbortSignal | undefined) {
    return request('Query', this.table, () => sendQuery(this.withSignal(signal), input));
  }

  private withSignal(signal: AbortSignal | undefined): DynamoDBDocumentClient {
    return withSignal(this.documents, signal);
  }

  private partitionKey(streamId: string): string {
    return partitionKeyOf(this.codec.streamName, streamId);
  }
}

import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getItem, request } from '../../dynamo';
import type { RowStore } from '../engine';

/** How far one segment of a backfill's scan of one events table got. */
export interface SegmentProgress {
  /** The scan's segment count when it was saved: a resumed backfill must use the same. */
  readonly segments: number;
  /** Where the segment's scan goes on; `undefined` when it is done. */
  readonly next: Record<string, unknown> | undefined;
  readonly done: boolean;
  readonly instances: number;
  /** Items the segment's scan read so far (for the estimate of the total). */
  readonly scanned: number;
}

/**
 * Where a backfill keeps its progress: one item per events table and scan segment, in the read model's
 * own table under a reserved partition (`_dfBackfill#<projection>#<run>#…`), so it needs no table of its
 * own and no set-up. Saved after each page of a segment whose instances are all applied; deleted when
 * the backfill finishes or restarts, so the next one starts afresh.
 */
export class BackfillProgressStore {
  constructor(
    private readonly store: RowStore,
    private readonly projection: string,
    private readonly run: string,
    /** Waits for a request's turn under the backfill's throttle: these requests count as well. */
    private readonly turn: () => Promise<void> = async () => undefined,
  ) {}

  async load(table: string, segment: number): Promise<SegmentProgress | undefined> {
    await this.turn();
    const item = await getItem(this.store.documents, this.store.readModel.table, this.keyOf(table, segment));
    const progress = item?.['progress'];
    return typeof progress === 'string' ? (JSON.parse(progress) as SegmentProgress) : undefined;
  }

  async save(table: string, segment: number, progress: SegmentProgress): Promise<void> {
    await this.turn();
    // The scan's start key is kept as JSON text: it is the document client's view of the key, as given back.
    const item = { ...this.keyOf(table, segment), progress: JSON.stringify(progress), updatedAt: new Date().toISOString() };
    await request('PutItem', this.store.readModel.table, () =>
      this.store.documents.send(new PutCommand({ TableName: this.store.readModel.table, Item: item })),
    );
  }

  /**
   * Deletes the run's progress of every segment of the table: the `segments` of this run and however many
   * the saved run had (segment 0 names them: a run saves it before any other), so that no cursor of an older
   * run is ever resumed. Segment 0 goes last: while it exists, it names the others, also after a forget that
   * was cut short.
   */
  async forget(table: string, segments: number): Promise<void> {
    const saved = await this.load(table, 0);
    const count = Math.max(segments, saved?.segments ?? 0);
    await Promise.all(Array.from({ length: count - 1 }, (_unused, index) => this.delete(table, index + 1)));
    await this.delete(table, 0);
  }

  private async delete(table: string, segment: number): Promise<void> {
    await this.turn();
    await request('DeleteItem', this.store.readModel.table, () =>
      this.store.documents.send(new DeleteCommand({ TableName: this.store.readModel.table, Key: this.keyOf(table, segment) })),
    );
  }

  private keyOf(table: string, segment: number): Record<string, string> {
    const { pk, sk } = this.store.readModel.key;
    const partition = `_dfBackfill#${this.projection}#${this.run}#${table}`;
    return sk === undefined ? { [pk.field]: `${partition}#${segment}` } : { [pk.field]: partition, [sk.field]: String(segment) };
  }
}

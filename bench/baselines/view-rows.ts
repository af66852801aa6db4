import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { Summary } from '../support/orders';

/** The rows the baselines keep: the same fields and key layout as dynafold's read model, written by hand. */
export class ViewRows {
  constructor(
    readonly documents: DynamoDBDocumentClient,
    readonly table: string,
    readonly model: string,
  ) {}

  key(orderId: string): { pk: string; sk: string } {
    return { pk: `${this.model}#${orderId}`, sk: this.model };
  }

  item(state: Summary, createdAt?: string): Record<string, unknown> {
    const now = new Date().toISOString();
    return { ...state, ...this.key(state.orderId), createdAt: createdAt ?? now, updatedAt: now };
  }

  async get(orderId: string): Promise<(Summary & { createdAt?: string }) | undefined> {
    const { Item } = await this.documents.send(new GetCommand({ TableName: this.table, Key: this.key(orderId), ConsistentRead: true }));
    return Item as (Summary & { createdAt?: string }) | undefined;
  }

  /** An unconditional put, to set a row up before a measurement. */
  async put(state: Summary): Promise<void> {
    await this.documents.send(new PutCommand({ TableName: this.table, Item: this.item(state) }));
  }
}

/** An event as a hand-written handler decodes it from a record: plain `data` maps only (nothing here is compressed). */
export interface RawEvent {
  readonly streamId: string;
  readonly version: number;
  readonly type: string;
  readonly data: unknown;
}

/** The events of an order event INSERT, in order: a record is an append's commit (none for any other record). */
export function decodeRecord(record: DynamoDBRecord | _Record): RawEvent[] {
  if (record.eventName !== 'INSERT' || record.dynamodb?.NewImage === undefined) return [];
  const item = unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>);
  return item['_df'] === 'Order' ? eventsOfCommit(item) : [];
}

/**
 * The events an order commit holds, as a hand-written reader takes them: the sort key is `e#` and the first
 * version in 10 digits; a commit of several holds them in `events`, one of one at the top level.
 */
export function eventsOfCommit(item: Record<string, unknown>): RawEvent[] {
  const streamId = String(item['pk']).slice('Order#'.length);
  const first = Number(String(item['sk']).slice('e#'.length));
  const stored = Array.isArray(item['events']) ? (item['events'] as Array<Record<string, unknown>>) : [item];
  return stored.map((event, index) => ({ streamId, version: first + index, type: String(event['type']), data: event['data'] }));
}

export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

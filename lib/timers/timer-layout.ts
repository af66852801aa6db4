import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import type { TransactPut } from '../store';
import { storedTraceContext, traceContextBytes, type TraceContext } from '../telemetry';
import { TimerDefaults } from './defaults';

/**
 * A timer's item, in a table keyed by `pk` + `sk` (a reactions table, beside the reactions' progress rows):
 * one item per timer, its key made of the owner, the scope and the name, so that scheduling a timer again
 * replaces it and cancelling it needs no read. While scheduled, it is in the due-time index (`_ds`, `_due`),
 * a sparse one: firing or cancelling it leaves a record (`state`) without them.
 */
export const TimerLayout = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Every timer's sort key: no reaction's progress row has it (their names hold no `#`). */
  sortKeyValue: '#timer',
  /** The owner's name (a reaction's or a workflow's): which of them fires it. */
  owner: '_timer',
  scope: 'scope',
  name: 'name',
  /** When it is due, in epoch ms. */
  at: 'at',
  data: 'data',
  /** The schedule's id: scheduling the timer again gives it another, which a late firing of the old one does not find. */
  id: 'id',
  state: 'state',
  /** The trace context of the span that scheduled it: its firing links to it. */
  traceContext: 'tc',
  /** The id of the firing that fired it, by which a firing whose answer was lost knows its own. */
  firing: 'firing',
  firedAt: 'firedAt',
  /** The due-time index's partition: one of the table's shards. */
  dueShard: '_ds',
  /** The due-time index's sort key: the time due (15 digits of epoch ms), then the id. */
  due: '_due',
  /** The due-time index's name. */
  index: 'dueTimers',
} as const;

/** Where a timer is: whose it is (a reaction's or a workflow's name), in which scope (a workflow instance's id, or none), and its name. */
export interface TimerKey {
  readonly owner: string;
  readonly scope: string;
  readonly name: string;
}

/** A timer as scheduled. */
export interface ScheduledTimer extends TimerKey {
  /** When it is due, in epoch ms. */
  readonly at: number;
  readonly id: string;
  readonly data?: unknown;
}

/** A due timer as a sweep reads it, for its owner to fire. */
export interface DueTimer extends ScheduledTimer {
  /** The trace context of the span that scheduled it. */
  readonly trace?: TraceContext | undefined;
}

/** The state of a timer's item. */
export type TimerState = 'scheduled' | 'fired' | 'cancelled';

const AT_DIGITS = 15;

/** The item key of a timer. */
export function timerItemKey(key: TimerKey): Record<string, string> {
  return {
    [TimerLayout.partitionKey]: JSON.stringify(['timer', key.owner, key.scope, key.name]),
    [TimerLayout.sortKey]: TimerLayout.sortKeyValue,
  };
}

/** The due-time index's partition a timer is in: one of `shards`, by a hash of its key. */
export function dueShard(key: TimerKey, shards: number): string {
  const text = timerItemKey(key)[TimerLayout.partitionKey] as string;
  // FNV-1a: stable across processes and versions, which the shard must be.
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193) >>> 0;
  return `timers#${hash % shards}`;
}

/** The due-time index's sort key of a timer due at `at` (or of everything due by then, with the id left out). */
export function dueSortKey(at: number, id = ''): string {
  return `${String(Math.max(0, Math.floor(at))).padStart(AT_DIGITS, '0')}#${id}`;
}

/** The Put that schedules a timer (replacing any of the same key), for a transaction: in the due-time index until it fires. */
export function schedulePut(table: string, timer: ScheduledTimer, shards: number, trace: TraceContext | undefined): TransactPut {
  const context = trace === undefined ? undefined : traceContextBytes(trace);
  return {
    TableName: table,
    Item: {
      ...timerItemKey(timer),
      [TimerLayout.owner]: timer.owner,
      [TimerLayout.scope]: timer.scope,
      [TimerLayout.name]: timer.name,
      [TimerLayout.at]: timer.at,
      [TimerLayout.id]: timer.id,
      [TimerLayout.state]: 'scheduled' satisfies TimerState,
      ...(timer.data === undefined ? {} : { [TimerLayout.data]: timer.data }),
      ...(context === undefined ? {} : { [TimerLayout.traceContext]: context }),
      [TimerLayout.dueShard]: dueShard(timer, shards),
      [TimerLayout.due]: dueSortKey(timer.at, timer.id),
    },
  };
}

/** The Put that cancels a timer: a record of it, out of the due-time index, that TTL deletes later. */
export function cancelPut(table: string, key: TimerKey, id: string, now: number): TransactPut {
  return {
    TableName: table,
    Item: {
      ...timerItemKey(key),
      [TimerLayout.owner]: key.owner,
      [TimerLayout.scope]: key.scope,
      [TimerLayout.name]: key.name,
      [TimerLayout.id]: id,
      [TimerLayout.state]: 'cancelled' satisfies TimerState,
      [TimerDefaults.ttlAttribute]: expiry(now),
    },
  };
}

/** When a fired or cancelled timer's record expires, in epoch seconds (DynamoDB TTL). */
export function expiry(now: number): number {
  return Math.ceil((now + TimerDefaults.recordTtlMs) / 1000);
}

/** A timer item as a sweep reads it; `undefined` for an item that is no scheduled timer. */
export function dueTimerOf(item: Readonly<Record<string, unknown>>): DueTimer | undefined {
  const owner = item[TimerLayout.owner];
  const scope = item[TimerLayout.scope];
  const name = item[TimerLayout.name];
  const at = item[TimerLayout.at];
  const id = item[TimerLayout.id];
  if (typeof owner !== 'string' || typeof scope !== 'string' || typeof name !== 'string' || typeof at !== 'number' || typeof id !== 'string')
    return undefined;
  if (item[TimerLayout.state] !== 'scheduled') return undefined;
  const trace = storedTraceContext(item[TimerLayout.traceContext]);
  return {
    owner,
    scope,
    name,
    at,
    id,
    ...(item[TimerLayout.data] === undefined ? {} : { data: item[TimerLayout.data] }),
    ...(trace === undefined ? {} : { trace }),
  };
}

/** A table definition with the timers' due-time index added (`_ds` + `_due` strings, every attribute projected). */
export function withDueIndex(definition: CreateTableCommandInput): CreateTableCommandInput {
  const attributes = [...(definition.AttributeDefinitions ?? [])];
  for (const name of [TimerLayout.dueShard, TimerLayout.due]) {
    if (!attributes.some((attribute) => attribute.AttributeName === name)) attributes.push({ AttributeName: name, AttributeType: 'S' });
  }
  return {
    ...definition,
    AttributeDefinitions: attributes,
    GlobalSecondaryIndexes: [
      ...(definition.GlobalSecondaryIndexes ?? []),
      {
        IndexName: TimerLayout.index,
        KeySchema: [
          { AttributeName: TimerLayout.dueShard, KeyType: 'HASH' },
          { AttributeName: TimerLayout.due, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}

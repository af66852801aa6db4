import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Attr } from './names';
import { activeOwnSpan, type OtelSpan } from './port';

/** What each traced span's requests consumed so far, summed per table. */
const consumed = new WeakMap<OtelSpan, Map<string, Capacity>>();

/** A `ConsumedCapacity` of DynamoDB's: the table's name and its units, and those of its indexes. */
type Capacity = { [field: string]: string | number | Capacity | undefined };

type Send = (command: { input?: unknown }, options?: unknown) => Promise<unknown>;

/**
 * The document client as a traced operation sees it: a request sent while one of dynafold's spans is
 * active and recording asks DynamoDB for its consumed capacity (`ReturnConsumedCapacity: TOTAL`, which
 * costs nothing) and adds what the response carries to that span's `aws.dynamodb.consumed_capacity`: one
 * JSON string per table, the sum over every request of the operation (an append's head read and its write,
 * a row's reads, its gap reads and its write). Other requests are sent as they are.
 */
export function withCapacity(documents: DynamoDBDocumentClient): DynamoDBDocumentClient {
  const view = Object.create(documents) as DynamoDBDocumentClient;
  const send: Send = (command, options) => {
    const plain = documents.send.bind(documents) as unknown as Send;
    const span = activeOwnSpan();
    if (span?.isRecording() !== true) return plain(command, options);
    const input = command.input as { ReturnConsumedCapacity?: unknown } | undefined;
    if (input !== undefined && input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = 'TOTAL';
    return plain(command, options).then((output) => {
      tell(span, (output as { ConsumedCapacity?: unknown } | undefined)?.ConsumedCapacity);
      return output;
    });
  };
  Object.defineProperty(view, 'send', { value: send });
  return view;
}

function tell(span: OtelSpan, capacity: unknown): void {
  if (capacity === undefined || capacity === null) return;
  const byTable = consumed.get(span) ?? new Map<string, Capacity>();
  consumed.set(span, byTable);
  for (const each of Array.isArray(capacity) ? capacity : [capacity]) {
    if (typeof each !== 'object' || each === null) continue;
    const name = (each as Capacity)['TableName'];
    const table = typeof name === 'string' ? name : '';
    byTable.set(table, sum(byTable.get(table) ?? {}, each as Capacity));
  }
  span.setAttributes({ [Attr.consumedCapacity]: [...byTable.values()].map((total) => JSON.stringify(total)) });
}

/** `total` plus `more`: their units added field by field (an index's too), other fields (the table's name) kept. */
function sum(total: Capacity, more: Capacity): Capacity {
  const out: Capacity = { ...total };
  for (const [field, value] of Object.entries(more)) {
    const was = out[field];
    if (typeof value === 'number') out[field] = (typeof was === 'number' ? was : 0) + value;
    else if (typeof value === 'object' && value !== null) out[field] = sum(typeof was === 'object' ? was : {}, value);
    else out[field] = value;
  }
  return out;
}

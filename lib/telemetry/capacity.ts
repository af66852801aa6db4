import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Attr } from './names';
import { activeSpan, otelInstalled, type OtelSpan } from './port';

/** The consumed capacity each traced span has been told of so far, as the attribute lists it. */
const told = new WeakMap<OtelSpan, string[]>();

type Send = (command: { input?: unknown }, options?: unknown) => Promise<unknown>;

/**
 * The document client as a traced call sees it: a request sent while a recording span is active asks
 * DynamoDB for its consumed capacity (`ReturnConsumedCapacity: TOTAL`, which costs nothing) and adds what
 * the response carries to that span's `aws.dynamodb.consumed_capacity` (one JSON string per table and
 * request, as the conventions write it). Other requests are sent as they are; without the API, the client
 * is returned unchanged.
 */
export function withCapacity(documents: DynamoDBDocumentClient): DynamoDBDocumentClient {
  if (!otelInstalled()) return documents;
  const view = Object.create(documents) as DynamoDBDocumentClient;
  const send: Send = (command, options) => {
    const plain = documents.send.bind(documents) as unknown as Send;
    const span = activeSpan();
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
  if (capacity === undefined) return;
  const list = told.get(span) ?? [];
  for (const each of Array.isArray(capacity) ? capacity : [capacity]) list.push(JSON.stringify(each));
  told.set(span, list);
  span.setAttributes({ [Attr.consumedCapacity]: list });
}

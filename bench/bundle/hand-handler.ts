/**
 * The same handler written by hand with the same SDK and zod: decode each INSERT, validate its data,
 * fold it into the row with a read and a conditional write, report failures by sequence number.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { z } from 'zod';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const table = process.env['VIEWS_TABLE'] ?? 'views';
const events = z.discriminatedUnion('type', [
  z.object({ type: z.literal('OrderPlaced'), data: z.object({ customer: z.string() }) }),
  z.object({ type: z.literal('ItemAdded'), data: z.object({ sku: z.string(), price: z.number() }) }),
]);
const row = z.object({ orderId: z.string(), customer: z.string(), items: z.number(), total: z.number(), version: z.number() });

interface StreamRecord {
  eventName?: string;
  dynamodb?: { SequenceNumber?: string; NewImage?: Record<string, never> };
}

async function apply(record: StreamRecord): Promise<void> {
  if (record.eventName !== 'INSERT' || record.dynamodb?.NewImage === undefined) return;
  const item = unmarshall(record.dynamodb.NewImage) as { pk: string; sk: string; type: string; data: string };
  const event = events.parse({ type: item.type, data: JSON.parse(item.data) });
  const orderId = item.pk.slice('Order#'.length);
  const version = Number(item.sk.slice('e#'.length));
  const key = { pk: `OrderSummary#${orderId}`, sk: '_' };
  const stored = (await documents.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
  const before = stored === undefined ? { orderId, customer: '', items: 0, total: 0, version: 0 } : row.parse(stored);
  if (version !== before.version + 1) return;
  const after =
    event.type === 'OrderPlaced'
      ? { ...before, customer: event.data.customer }
      : { ...before, items: before.items + 1, total: before.total + event.data.price };
  await documents.send(
    new PutCommand({
      TableName: table,
      Item: { ...key, ...after, version },
      ConditionExpression: 'attribute_not_exists(pk) OR version = :v',
      ExpressionAttributeValues: { ':v': before.version },
    }),
  );
}

export const handler = async (event: { Records: StreamRecord[] }) => {
  const batchItemFailures: Array<{ itemIdentifier: string }> = [];
  for (const record of event.Records) {
    try {
      await apply(record);
    } catch {
      batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
    }
  }
  return { batchItemFailures };
};

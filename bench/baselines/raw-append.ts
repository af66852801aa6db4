import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * An append written by hand: ONE TransactWriteItems with the same items and conditions as dynafold's
 * (a ConditionCheck that the expected version exists, each new version's Put conditioned on not existing),
 * without validation, size checks or error mapping.
 */
export async function rawAppend(
  documents: DynamoDBDocumentClient,
  table: string,
  streamId: string,
  expectedVersion: number,
  events: ReadonlyArray<{ type: string; data: unknown }>,
): Promise<void> {
  const pk = `Order#${streamId}`;
  const sk = (version: number) => `e#${String(version).padStart(10, '0')}`;
  const ts = Date.now();
  await documents.send(
    new TransactWriteCommand({
      TransactItems: [
        ...(expectedVersion > 0
          ? [
              {
                ConditionCheck: {
                  TableName: table,
                  Key: { pk, sk: sk(expectedVersion) },
                  ConditionExpression: 'attribute_exists(#pk)',
                  ExpressionAttributeNames: { '#pk': 'pk' },
                },
              },
            ]
          : []),
        ...events.map((event, i) => ({
          Put: {
            TableName: table,
            Item: {
              pk,
              sk: sk(expectedVersion + 1 + i),
              _df: 'Order',
              type: event.type,
              ts,
              data: event.data,
            },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': 'pk' },
          },
        })),
      ],
    }),
  );
}

import { CreateTableCommand, PutItemCommand, QueryCommand as RawQueryCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { billed } from '../../bench/cost/billed';
import { testClient, uniqueName } from '../support/dynamo';

const client = testClient();
const documents = DynamoDBDocumentClient.from(client);
const table = uniqueName('billed');
const data = (bytes: number) => 'x'.repeat(bytes);

afterAll(() => client.destroy());

describe('the billing middleware on a real client', () => {
  test('bills whole items while the library gets the answer it asked for', async () => {
    const bill = await billed(client);
    // Created after the middleware: it learns the key from the CreateTable request.
    await client.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'N' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
    for (const sk of [1, 2, 3]) await documents.send(new PutCommand({ TableName: table, Item: { pk: 's', sk, v: sk, data: data(3000) } }));
    expect(bill.writeUnits).toBe(9);

    bill.reset();
    const projected = await documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'pk', '#v': 'v' },
        ExpressionAttributeValues: { ':pk': 's' },
        ProjectionExpression: '#v',
        ConsistentRead: true,
      }),
    );
    expect(projected.Items).toEqual([{ v: 1 }, { v: 2 }, { v: 3 }]);
    expect(bill.readUnits).toBe(3); // 3 × ~3 KB summed, not the few bytes of `v`

    bill.reset();
    const counted = await client.send(
      new RawQueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 's' } },
        Select: 'COUNT',
      }),
    );
    expect(counted.Items).toBeUndefined();
    expect(counted.Count).toBe(3);
    expect(bill.readUnits).toBe(1.5); // eventually consistent

    bill.reset();
    const updated = await documents.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: 's', sk: 1 },
        UpdateExpression: 'SET #d = :d',
        ExpressionAttributeNames: { '#d': 'data' },
        ExpressionAttributeValues: { ':d': 'small' },
      }),
    );
    expect(updated.Attributes).toBeUndefined();
    expect(bill.writeUnits).toBe(3); // the larger of before (3 KB) and after

    bill.reset();
    await expect(
      client.send(
        new PutItemCommand({ TableName: table, Item: { pk: { S: 's' }, sk: { N: '2' } }, ConditionExpression: 'attribute_not_exists(pk)' }),
      ),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(bill.writeUnits).toBe(3); // the failed condition bills the item that is there
  });

  test('bills answers when its figures are read, in the order they were answered, however many wait', async () => {
    // At most 128 wait: the 300 writes below bill some as they go and the rest when the figures are read.
    const bill = await billed(client, 128);
    bill.reset();
    // 300 writes of one item, growing then shrinking: each bills the larger of the item it replaced and its own.
    const sizes = Array.from({ length: 300 }, (_, i) => (i < 150 ? 100 + i * 20 : 3100 - (i - 150) * 20));
    for (const bytes of sizes) await documents.send(new PutCommand({ TableName: table, Item: { pk: 'order', sk: 1, data: data(bytes) } }));
    const expected = sizes.reduce(
      (sum, bytes, i) =>
        sum + Math.ceil((Math.max(bytes, sizes[i - 1] ?? 0) + 'pk'.length + 'order'.length + 'sk'.length + 2 + 'data'.length) / 1024),
      0,
    );
    expect(bill.writeUnits).toBe(expected);
  });
});

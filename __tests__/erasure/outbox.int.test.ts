/**
 * Outbox messages of events with personal data are sealed for their subjects, in the table and in its
 * stream records; the relay opens them to publish, and deletes unpublished those whose subject was
 * forgotten before they went out.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { OutboxRelay, type OutboxMessage } from 'dynafold/outbox';
import { customerProfileProjection } from '../support/customers';
import { customerSetupOfFile } from '../support/customer-setup';
import { plaintextIn, recordValues, scanTable } from '../support/plaintext';
import { readStreamRecords } from '../support/stream-records';

const setup = customerSetupOfFile('erasure-outbox', { outbox: true });
const { client, tables } = setup;

test('messages are sealed in the outbox and its stream; the relay publishes them opened, and erases those of a forgotten subject', async () => {
  const keys = setup.keys();
  const Customers = setup.customers(keys);
  const projection = customerProfileProjection(Customers, setup.profiles(), { outbox: tables.outbox as string });
  await Customers.append({ customerId: 'o-1' }, [{ type: 'Registered', data: { name: 'Ada Lovelace', email: 'ada@example.com', country: 'UK' } }]);
  await Customers.append({ customerId: 'o-1' }, [{ type: 'Referred', data: { friendId: 'o-2', friendName: 'Grace Hopper' } }]);
  await Customers.append({ customerId: 'o-1' }, [{ type: 'OrderPlaced', data: { orderId: 'x-1', total: 3 } }]);
  await projection.catchUp({ customerId: 'o-1' });

  const outboxRecords = (await readStreamRecords(await streamArnOf(tables.outbox as string))).filter((record) => record.eventName === 'INSERT');
  expect(outboxRecords).toHaveLength(3);
  const secrets = ['Ada Lovelace', 'ada@example.com', 'Grace Hopper'];
  expect(plaintextIn([...(await scanTable(client, tables.outbox as string)), ...recordValues(outboxRecords)], secrets)).toEqual([]);

  // The friend is forgotten before the relay runs: her message goes unpublished; Ada's and the order's go out.
  await keys.forget('o-2');
  const published: OutboxMessage[] = [];
  const relay = new OutboxRelay({
    client,
    table: tables.outbox as string,
    keys: setup.keys(),
    publish: async (message) => void published.push(message),
    logger: false,
  });
  const result = await relay.drainAll();
  expect(result).toEqual({ published: 2, erased: 1, failures: [] });
  expect(published.map((message) => (message.message as { type: string }).type)).toEqual(['Registered', 'OrderPlaced']);
  expect((published[0]?.message as { data: unknown }).data).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com', country: 'UK' });
  expect(await scanTable(client, tables.outbox as string)).toEqual([]);
});

test('a relay without keys fails the row of a sealed message and leaves it for the next pass', async () => {
  const keys = setup.keys();
  const Customers = setup.customers(keys);
  const projection = customerProfileProjection(Customers, setup.profiles(), { outbox: tables.outbox as string });
  await Customers.append({ customerId: 'o-3' }, [{ type: 'Registered', data: { name: 'Alan Turing', email: 'alan@example.com', country: 'UK' } }]);
  await projection.catchUp({ customerId: 'o-3' });
  const result = await new OutboxRelay({ client, table: tables.outbox as string, publish: async () => undefined, logger: false }).drainAll();
  expect(result.published).toBe(0);
  expect(result.failures.map((failure) => (failure.error as Error).message)).toEqual([expect.stringMatching(/give the relay `keys`/)]);
  expect(await scanTable(client, tables.outbox as string)).toHaveLength(1);
});

async function streamArnOf(table: string): Promise<string> {
  return (await client.send(new DescribeTableCommand({ TableName: table }))).Table?.LatestStreamArn as string;
}

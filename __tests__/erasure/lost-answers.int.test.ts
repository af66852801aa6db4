/**
 * Key-table writes whose answer is lost after DynamoDB applied them: the SDK sends them again. A forget
 * reports what it did, and a new key is this call's own, whatever answer is lost.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { quickRetries } from '../../chaos/faults';
import { customerSetupOfFile } from '../support/customer-setup';
import { customerStream, subjectKeys } from '../support/customers';
import { localConfig } from '../support/dynamo';
import { loseAnswers } from '../support/lost-answers';

const setup = customerSetupOfFile('lost-keys');
const { client } = setup;
const answers = loseAnswers(client);
afterEach(() => answers.stop());

const registered = (name: string) => ({ type: 'Registered', data: { name, email: `${name.toLowerCase()}@example.com`, country: 'UK' } }) as const;

test('a forget whose answer is lost reports that it deleted the key; the next forget that it was done before', async () => {
  const keys = setup.keys();
  await setup.customers(keys).append({ customerId: 'lost-1' }, [registered('Ada')]);
  answers.loseNext({ operation: 'UpdateItem' });
  const forgotten = await keys.forget('lost-1');
  expect(answers.lost).toHaveLength(1);
  expect(forgotten).toMatchObject({ subject: 'lost-1', alreadyForgotten: false, keyDeleted: true });
  expect(await setup.keys().forget('lost-1')).toMatchObject({ alreadyForgotten: true, keyDeleted: false, forgottenAt: forgotten.forgottenAt });
});

test('a forget of a subject with no key, whose answer is lost, reports that it left the marker and deleted no key', async () => {
  answers.loseNext({ operation: 'UpdateItem' });
  expect(await setup.keys().forget('lost-2')).toMatchObject({ alreadyForgotten: false, keyDeleted: false });
  expect(answers.lost).toHaveLength(1);
});

test("a new key whose Put's answer is lost is the append's own: no read of the key table, no unwrap", async () => {
  const keys = setup.keys();
  answers.loseNext({ operation: 'PutItem', where: (input) => input['TableName'] === setup.tables.subjectKeys });
  const Customers = setup.customers(keys);
  await Customers.append({ customerId: 'lost-3' }, [registered('Grace')]);
  expect(answers.lost).toHaveLength(1);
  expect(keys.stats.unwrapped).toBe(0);
  expect((await Customers.read({ customerId: 'lost-3' }))[0]?.data).toMatchObject({ email: 'grace@example.com' });
  expect((await setup.customers(setup.keys()).read({ customerId: 'lost-3' }))[0]?.data).toMatchObject({ email: 'grace@example.com' });
});

test('a forget and a new key whose answers are lost, the SDK giving up on their retries, read their own writes and report them', async () => {
  const brief = new DynamoDBClient({ ...localConfig(), retryStrategy: quickRetries(2, 5) });
  const briefAnswers = loseAnswers(brief);
  try {
    const keys = subjectKeys(brief, setup.tables.subjectKeys as string, setup.provider);
    const Customers = customerStream(brief, setup.tables.events as string, keys);
    briefAnswers.loseNext({ operation: 'PutItem', where: (input) => input['TableName'] === setup.tables.subjectKeys, throttleRetries: 1 });
    await Customers.append({ customerId: 'lost-4' }, [registered('Edsger')]);
    expect(briefAnswers.lost).toHaveLength(1);
    expect(keys.stats.unwrapped).toBe(0);
    briefAnswers.loseNext({ operation: 'UpdateItem', throttleRetries: 1 });
    expect(await keys.forget('lost-4')).toMatchObject({ alreadyForgotten: false, keyDeleted: true });
    expect(briefAnswers.lost).toHaveLength(2);
  } finally {
    brief.destroy();
  }
});

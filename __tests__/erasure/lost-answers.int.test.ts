/**
 * Key-table writes whose answer is lost after DynamoDB applied them: the SDK sends them again. A forget
 * reports what it did, and a new key is this call's own, whatever answer is lost.
 */
import { customerSetupOfFile } from '../support/customer-setup';
import { loseAnswers } from '../support/lost-answers';

const setup = customerSetupOfFile('lost-keys');
const { client } = setup;
const answers = loseAnswers(client);
afterEach(() => answers.stop());

const registered = (name: string) => ({ type: 'Registered', data: { name, email: `${name.toLowerCase()}@example.com`, country: 'UK' } }) as const;

test('a forget whose answer is lost reports that it deleted the key; the next forget that it was done before', async () => {
  const keys = setup.keys();
  await setup.customers(keys).append({ customerId: 'lost-1' }, [registered('Ada')]);
  answers.loseNext(1, 'UpdateItem');
  const forgotten = await keys.forget('lost-1');
  expect(answers.lost).toHaveLength(1);
  expect(forgotten).toMatchObject({ subject: 'lost-1', alreadyForgotten: false, keyDeleted: true });
  expect(await setup.keys().forget('lost-1')).toMatchObject({ alreadyForgotten: true, keyDeleted: false, forgottenAt: forgotten.forgottenAt });
});

test('a forget of a subject with no key, whose answer is lost, reports that it left the marker and deleted no key', async () => {
  answers.loseNext(1, 'UpdateItem');
  expect(await setup.keys().forget('lost-2')).toMatchObject({ alreadyForgotten: false, keyDeleted: false });
  expect(answers.lost).toHaveLength(1);
});

test("a new key whose Put's answer is lost is the append's own: no read of the key table, no unwrap", async () => {
  const keys = setup.keys();
  answers.loseNext(1, 'PutItem', (input) => input['TableName'] === setup.tables.subjectKeys);
  const Customers = setup.customers(keys);
  await Customers.append({ customerId: 'lost-3' }, [registered('Grace')]);
  expect(answers.lost).toHaveLength(1);
  expect(keys.stats.unwrapped).toBe(0);
  expect((await Customers.read({ customerId: 'lost-3' }))[0]?.data).toMatchObject({ email: 'grace@example.com' });
  expect((await setup.customers(setup.keys()).read({ customerId: 'lost-3' }))[0]?.data).toMatchObject({ email: 'grace@example.com' });
});

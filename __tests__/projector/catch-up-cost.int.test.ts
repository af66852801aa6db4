/**
 * What `catchUp` costs, counted on a real client: requests by command, and the read units AWS would bill
 * for them (the bench's billing middleware: a read is billed for the whole items it reads).
 */
import { eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { billed, type Billed } from '../../bench/cost/billed';
import { createTestTable, testClient } from '../support/dynamo';
import { countRequests, type RequestLog } from '../support/requests';
import { sensorStream, zoneProjection, zoneReadings } from '../support/sensors';

const client = testClient();
const requests: RequestLog = countRequests(client);
let bill: Billed;
let sensors: ReturnType<typeof sensorStream>;
let projection: ReturnType<typeof zoneProjection>;

beforeAll(async () => {
  bill = await billed(client);
  const events = await createTestTable(client, eventsTableDefinition, 'catchup-events');
  sensors = sensorStream(client, events.name);
  const model = zoneReadings(client, 'unused');
  const views = await createTestTable(client, (name) => readModelTableDefinition(name, [model]), 'catchup-views');
  projection = zoneProjection(sensors, zoneReadings(client, views.name));
});
afterAll(() => client.destroy());

/** A note of about `bytes` bytes: notes address no row. */
const note = (bytes: number) => ({ type: 'SensorNote' as const, data: { text: 'n'.repeat(bytes) } });

test('catchUp walks back a commit at a time: each commit read once, by one Query, past events that address no row', async () => {
  const id = { sensorId: 'walk-1' };
  await sensors.append(id, [{ type: 'SensorPlaced', data: { zone: 'a' } }]);
  // Three commits of five notes of about 3 KB each: about 15 KB a commit, 4 read units strongly consistent.
  for (let commit = 0; commit < 3; commit++)
    await sensors.append(
      id,
      Array.from({ length: 5 }, () => note(3_000)),
    );
  requests.reset();
  bill.reset();

  const outcome = await projection.catchUp(id);

  expect(outcome).toMatchObject({ status: 'applied', version: 1 });
  // One Query per commit, newest first, down to the one whose event addresses a row; then the row's read
  // and its write (no gap: the row starts at that event).
  expect(Object.fromEntries(requests.counts)).toEqual({ QueryCommand: 4, GetItemCommand: 1, PutItemCommand: 1 });
  // 3 commits × 4 units, the first commit's 1 and the row's 1.
  expect(bill.readUnits).toBe(14);
  expect(await projection.readModel.get({ sensorId: 'walk-1', zone: 'a' }, { consistent: true })).toMatchObject({ readings: 0, seq: 1 });
});

test('catchUp of a stream whose latest event addresses a row reads one commit', async () => {
  const id = { sensorId: 'walk-2' };
  await sensors.append(id, [note(3_000), { type: 'SensorPlaced', data: { zone: 'b' } }]);
  requests.reset();
  bill.reset();
  expect(await projection.catchUp(id)).toMatchObject({ status: 'applied', version: 2 });
  // The commit holding the head, then the row, the gap read of version 1 (the row starts there) and the write.
  expect(Object.fromEntries(requests.counts)).toEqual({ QueryCommand: 2, GetItemCommand: 1, PutItemCommand: 1 });
  expect(bill.readUnits).toBe(3);
});

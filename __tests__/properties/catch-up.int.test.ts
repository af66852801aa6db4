import fc from 'fast-check';
import { eventsTableDefinition, readModelTableDefinition } from 'dynafold';
import { createTestTable, testClient } from '../support/dynamo';
import { propertySettings, propertyTimeout } from '../support/delivery';
import { countRequests } from '../support/requests';
import { sensorStream, zoneProjection, zoneReadings } from '../support/sensors';

// catchUp over streams of 1 to 5 commits of 1 to 3 sensor events (notes address no row): it brings the
// row of the newest event that addresses one to the head, reading each commit from the head down to the
// one holding that event once, in one Query each, plus one gap read for the row's earlier versions.
const client = testClient();
const requests = countRequests(client);
let sensors: ReturnType<typeof sensorStream>;
let views: string;
let cases = 0;

beforeAll(async () => {
  sensors = sensorStream(client, (await createTestTable(client, eventsTableDefinition, 'catchup-prop')).name);
  views = (await createTestTable(client, (name) => readModelTableDefinition(name, [zoneReadings(client, name)]), 'catchup-prop-views')).name;
});
afterAll(() => client.destroy());

type SensorEvent =
  | { readonly type: 'SensorPlaced'; readonly data: { readonly zone: string } }
  | { readonly type: 'SensorNote'; readonly data: { readonly text: string } };
const sensorEvent: fc.Arbitrary<SensorEvent> = fc.oneof(
  fc.record({ type: fc.constant('SensorPlaced' as const), data: fc.record({ zone: fc.constantFrom('a', 'b') }) }),
  {
    weight: 2,
    arbitrary: fc.record({ type: fc.constant('SensorNote' as const), data: fc.record({ text: fc.constantFrom('x', 'y'.repeat(2_000)) }) }),
  },
);
const commits = fc.array(fc.array(sensorEvent, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 });

test(
  'catchUp brings the row of the newest event that addresses one, reading each commit it walks back through once',
  async () => {
    await fc.assert(
      fc.asyncProperty(commits, async (given) => {
        const id = { sensorId: `c-${++cases}` };
        for (const commit of given) await sensors.append(id, commit);
        const events = given.flat();
        const newest = events
          .map((event, index) => ({ event, version: index + 1 }))
          .reverse()
          .find(({ event }) => event.type === 'SensorPlaced');
        // Commits from the head down to the one holding the newest placement (all of them when there is none).
        let end = 0;
        const ends = given.map((commit) => (end += commit.length));
        const walked = newest === undefined ? given.length : ends.filter((last) => last >= newest.version).length;
        const projection = zoneProjection(sensors, zoneReadings(client, views, `Zones${cases}`));
        requests.reset();
        const outcome = await projection.catchUp(id);
        const gapRead = newest !== undefined && newest.version > 1 ? 1 : 0;
        expect(requests.count('QueryCommand')).toBe(walked + gapRead);
        if (newest === undefined) {
          expect(outcome).toBeUndefined();
        } else {
          const zone = (newest.event as Extract<SensorEvent, { type: 'SensorPlaced' }>).data.zone;
          expect(outcome).toMatchObject({ status: 'applied', key: { sensorId: id.sensorId, zone }, version: newest.version });
        }
      }),
      propertySettings(15),
    );
  },
  propertyTimeout(15),
);

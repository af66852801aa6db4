import fc from 'fast-check';
import { projectionSpec, type ProjectionSpecTables } from 'dynafold/testing';
import { propertySettings, propertyTimeout } from '../support/delivery';
import { testClient } from '../support/dynamo';
import { losing, parkingZoneProjection, sensorStream, zoneReadings, zoneRowOf } from '../support/sensors';

// The test kit accounts for every event of a commit on its own: commits of 1 to 3 sensor events, some of
// which address no row (notes) or a row that parks (zone x), are given to a projection spec whose
// projection may lose one event of zone a or b that no later event of its row reads back. The spec passes
// exactly when nothing was lost, and otherwise names the lost event as never applied.
const client = testClient();
afterAll(() => client.destroy());

type SensorEvent =
  | { readonly type: 'SensorPlaced'; readonly data: { readonly zone: string } }
  | { readonly type: 'SensorReading'; readonly data: { readonly zone: string; readonly celsius: number } }
  | { readonly type: 'SensorNote'; readonly data: { readonly text: string } };

const sensorEvent: fc.Arbitrary<SensorEvent> = fc.oneof(
  fc.record({ type: fc.constant('SensorPlaced' as const), data: fc.record({ zone: fc.constantFrom('a', 'b') }) }),
  fc.record({
    type: fc.constant('SensorReading' as const),
    data: fc.record({ zone: fc.constantFrom('a', 'b', 'x'), celsius: fc.constantFrom(10, 35) }),
  }),
  fc.record({ type: fc.constant('SensorNote' as const), data: fc.record({ text: fc.constant('checked') }) }),
);
const commits = fc.array(fc.array(sensorEvent, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 });

const zoneOf = (event: SensorEvent): string | undefined => (event.type === 'SensorNote' ? undefined : event.data.zone);

test(
  'a projection spec fails exactly when an event of a commit was never applied, whatever the commit’s other events did',
  async () => {
    await fc.assert(
      fc.asyncProperty(commits, fc.nat(), fc.boolean(), fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (given, pick, loses, seed) => {
        const events = given.flat();
        // Versions (1-based) of the events that are the last of their row in zone a or b: lost, none reads them back.
        const losable = events.flatMap((event, index) => {
          const zone = zoneOf(event);
          const last = zone !== undefined && zone !== 'x' && !events.slice(index + 1).some((later) => zoneOf(later) === zone);
          return last ? [index + 1] : [];
        });
        const lost = loses && losable.length > 0 ? losable[pick % losable.length] : undefined;
        const projection = ({ events: table, readModels }: ProjectionSpecTables) =>
          losing(parkingZoneProjection(sensorStream(client, table), zoneReadings(client, readModels)), (event) => event.version === lost);
        const rows = ['a', 'b'].map((zone) => {
          const folded = events
            .map((event, index) => ({ event, version: index + 1 }))
            .filter(({ event, version }) => zoneOf(event) === zone && version !== lost);
          const row = folded.reduce(
            (state, { event, version }) =>
              event.type === 'SensorReading'
                ? { ...state, readings: state.readings + 1, maxCelsius: Math.max(state.maxCelsius, event.data.celsius), seq: version }
                : { ...state, seq: version },
            zoneRowOf('s-1', zone),
          );
          return { key: { sensorId: 's-1', zone }, row: folded.length === 0 ? undefined : row };
        });
        const spec = projectionSpec(projection, { seed, deliveries: ['shuffled', 'lanes'] })
          .given(given.map((commit) => ({ streamId: { sensorId: 's-1' }, events: commit })))
          .thenRows(rows);
        if (lost === undefined) await spec;
        else await expect(spec).rejects.toMatchObject({ message: expect.stringMatching(/events never applied/), actual: [`Sensor#s-1@${lost}`] });
      }),
      propertySettings(10),
    );
  },
  propertyTimeout(10),
);

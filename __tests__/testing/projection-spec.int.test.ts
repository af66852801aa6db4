/**
 * The test kit's projection spec on the order summaries and the sensor zones: every delivery mode, the
 * exactly-once accounting (zones have rejected and ignored events), and how a failure reads.
 */
import { DeliveryModes, SpecAssertionError, projectionSpec, type ProjectionSpecTables } from 'dynafold/testing';
import { Projection } from 'dynafold';
import { testClient } from '../support/dynamo';
import { initialSummary, orderSummaries, orderSummaryProjection } from '../support/order-projection';
import { orderStream } from '../support/orders';
import { losing, parkingZoneProjection, sensorStream, zoneProjection, zoneReadings, zoneRowOf } from '../support/sensors';

const client = testClient();
afterAll(() => client.destroy());

const summaries = ({ events, readModels }: ProjectionSpecTables) =>
  orderSummaryProjection(orderStream(client, events), orderSummaries(client, readModels));
const zones = ({ events, readModels }: ProjectionSpecTables) => zoneProjection(sensorStream(client, events), zoneReadings(client, readModels));

const placed = (customer: string) => ({ type: 'OrderPlaced' as const, data: { customer } });
const item = (sku: string, price: number) => ({ type: 'ItemAdded' as const, data: { sku, price } });
const shipped = { type: 'OrderShipped' as const, data: {} };

test('order summaries equal the fold after every delivery mode, each event applied exactly once', async () => {
  const result = await projectionSpec(summaries, { seed: 1 })
    .given([
      { streamId: { orderId: 'o-1' }, events: [placed('ada'), item('book', 12)] },
      { streamId: { orderId: 'o-2' }, events: [placed('bob')] },
      { streamId: { orderId: 'o-1' }, events: [item('pen', 2), shipped] },
      { streamId: 'o-2', events: [item('lamp', 30), item('ink', 5)] },
    ])
    .thenRows([
      { key: { orderId: 'o-1' }, row: { orderId: 'o-1', customer: 'ada', status: 'shipped', items: 2, total: 14, version: 4 } },
      { key: { orderId: 'o-2' }, row: { orderId: 'o-2', customer: 'bob', status: 'placed', items: 2, total: 35, version: 3 } },
      { key: { orderId: 'o-3' }, row: undefined },
    ]);
  expect(result.seed).toBe(1);
  expect(result.events).toBe(7);
  expect(result.deliveries.map((delivery) => delivery.mode)).toEqual(DeliveryModes);
  for (const delivery of result.deliveries) expect(delivery.applied).toBe(7);
  const byMode = new Map(result.deliveries.map((delivery) => [delivery.mode, delivery]));
  expect(byMode.get('inOrder')?.alreadyApplied).toBe(0);
  // Four records (one per append, the given entries' events in each), which seed 1 delivers in a batch that
  // comes twice: the second time, the rows already had them. (Records repeated within one batch are deduped.)
  expect(byMode.get('duplicated')?.alreadyApplied).toBeGreaterThan(0);
});

test('rejected and ignored events are accounted for; a custom check runs after each delivery', async () => {
  const modes: string[] = [];
  await projectionSpec(zones, { deliveries: ['shuffled', 'lanes'] })
    .given([
      { streamId: { sensorId: 's-1' }, events: [{ type: 'SensorReading', data: { zone: 'a', celsius: 20 } }] }, // rejected: zone a not placed
      {
        streamId: { sensorId: 's-1' },
        events: [
          { type: 'SensorPlaced', data: { zone: 'a' } },
          { type: 'SensorNote', data: { text: 'ok' } },
        ],
      },
      { streamId: { sensorId: 's-1' }, events: [{ type: 'SensorReading', data: { zone: 'a', celsius: 31 } }] },
      { streamId: { sensorId: 's-2' }, events: [{ type: 'SensorPlaced', data: { zone: 'b' } }] },
    ])
    .thenRows(
      [
        { key: { sensorId: 's-1', zone: 'a' }, row: { sensorId: 's-1', zone: 'a', readings: 1, maxCelsius: 31, seq: 4, alertKey: 'hot' } },
        { key: { sensorId: 's-2', zone: 'b' }, row: { sensorId: 's-2', zone: 'b', readings: 0, maxCelsius: -1000, seq: 1, alertKey: 'normal' } },
      ],
      async ({ mode, projection, report }) => {
        modes.push(mode);
        expect(report.applied).toBe(3); // v1 of s-1 rejected, its note ignored
        // Without includeHidden, a reader sees no alertKey.
        expect(await projection.readModel.get({ sensorId: 's-1', zone: 'a' }, { consistent: true })).not.toHaveProperty('alertKey');
      },
    );
  expect(modes).toEqual(['shuffled', 'lanes']);
});

test('a row that differs fails with a diff, the delivery and the seed to replay it', async () => {
  const failure = projectionSpec(summaries, { seed: 42, deliveries: ['shuffled'] })
    .given([{ streamId: { orderId: 'o-9' }, events: [placed('cy'), item('cup', 3)] }])
    .thenRows([{ key: { orderId: 'o-9' }, row: { orderId: 'o-9', customer: 'cy', status: 'placed', items: 1, total: 4, version: 2 } }]);
  await expect(failure).rejects.toBeInstanceOf(SpecAssertionError);
  await expect(failure).rejects.toMatchObject({
    seed: 42,
    message: expect.stringMatching(
      /delivery 'shuffled' \(seed 42: replay it with \{ seed: 42, deliveries: \['shuffled'\] \} or DYNAFOLD_SPEC_SEED=42\)\nrows:$/,
    ),
    operator: 'deepStrictEqual',
    expected: [{ key: { orderId: 'o-9' }, row: expect.objectContaining({ total: 4 }) }],
    actual: [{ key: { orderId: 'o-9' }, row: expect.objectContaining({ total: 3 }) }],
  });
  // Its stack starts at this test's call of thenRows.
  const error = await failure.then(
    () => undefined,
    (rejected: unknown) => rejected as Error,
  );
  expect(error?.stack?.split('\n').find((line) => /^\s+at /.test(line))).toContain(__filename);
});

test('a row that keeps failing fails the spec after maxTriesPerBatch deliveries instead of hanging', async () => {
  const broken = ({ events, readModels }: ProjectionSpecTables) =>
    new Projection({
      stream: orderStream(client, events),
      readModel: orderSummaries(client, readModels),
      key: (id) => ({ orderId: id.orderId }),
      initial: (id) => initialSummary(id.orderId),
      evolve: () => {
        throw new Error('evolve is broken');
      },
      checkpoint: 'version',
    });
  const spec = projectionSpec(broken, { deliveries: ['inOrder'], maxTriesPerBatch: 2, seed: 3 })
    .given([{ streamId: { orderId: 'o-8' }, events: [placed('dee')] }])
    .thenRows([]);
  await expect(spec).rejects.toThrow(/delivery 'inOrder' \(seed 3[\s\S]*a batch still failed after 2 deliveries: Error: evolve is broken/);
});

test("a custom check's error is told which delivery and seed it failed on", async () => {
  const spec = projectionSpec(summaries, { deliveries: ['lanes'], seed: 5 })
    .given([{ streamId: { orderId: 'o-7' }, events: [placed('eve')] }])
    .thenRows([], () => {
      throw new Error('checked');
    });
  await expect(spec).rejects.toThrow(/delivery 'lanes' \(seed 5[\s\S]*\nchecked$/);
});

const reading = (zone: string, celsius: number) => ({ type: 'SensorReading' as const, data: { zone, celsius } });
const placedRow = (zone: string) => ({ ...zoneRowOf('s-1', zone), seq: 1 });

test('an event never applied fails the spec although another event of its commit was ignored', async () => {
  const lossy = (tables: ProjectionSpecTables) => losing(zones(tables), (event) => event.type === 'SensorReading');
  const spec = projectionSpec(lossy, { seed: 11 })
    .given([
      { streamId: { sensorId: 's-1' }, events: [{ type: 'SensorPlaced', data: { zone: 'a' } }] },
      // One commit: a reading (lost) and a note (ignored: it addresses no row).
      { streamId: { sensorId: 's-1' }, events: [reading('a', 31), { type: 'SensorNote', data: { text: 'hot' } }] },
    ])
    .thenRows([{ key: { sensorId: 's-1', zone: 'a' }, row: placedRow('a') }]);
  await expect(spec).rejects.toMatchObject({ message: expect.stringMatching(/events never applied/), actual: ['Sensor#s-1@2'] });
});

test('an event never applied fails the spec although another row of its commit was parked', async () => {
  // Zone x's row fails on every event and is parked at once; zone a's reading is lost.
  const parking = ({ events, readModels }: ProjectionSpecTables) =>
    losing(
      parkingZoneProjection(sensorStream(client, events), zoneReadings(client, readModels)),
      (event) => event.type === 'SensorReading' && (event.data as { zone: string }).zone === 'a',
    );
  const spec = projectionSpec(parking, { seed: 12, deliveries: ['inOrder', 'lanes'] })
    .given([
      { streamId: { sensorId: 's-1' }, events: [{ type: 'SensorPlaced', data: { zone: 'a' } }] },
      // One commit: zone x's reading (its row parked) and zone a's (lost).
      { streamId: { sensorId: 's-1' }, events: [reading('x', 20), reading('a', 21)] },
    ])
    .thenRows([{ key: { sensorId: 's-1', zone: 'a' }, row: placedRow('a') }]);
  // Zone x's reading, set aside by its parked row, is rightly never applied.
  await expect(spec).rejects.toMatchObject({ message: expect.stringMatching(/events never applied/), actual: ['Sensor#s-1@3'] });
});

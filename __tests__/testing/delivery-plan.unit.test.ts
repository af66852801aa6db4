import fc from 'fast-check';
import { ConfigurationError } from 'dynafold';
import { DeliveryModes, localClientConfig, planDelivery, projectionSpec, uniqueTableName } from 'dynafold/testing';

const keys = fc.array(fc.constantFrom('pk-a', 'pk-b', 'pk-c', 'pk-d'), { minLength: 0, maxLength: 30 });
const shape = fc.record({ lanes: fc.integer({ min: 1, max: 10 }), maxBatchSize: fc.integer({ min: 1, max: 6 }) });
const seed = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const mode = fc.constantFrom(...DeliveryModes);

test('a plan is the same for the same seed, delivers every record, and never an empty batch', () => {
  fc.assert(
    fc.property(mode, keys, seed, shape, (m, k, s, sh) => {
      const plan = planDelivery(m, k, s, sh);
      expect(planDelivery(m, k, s, sh)).toEqual(plan);
      const delivered = plan.flat(2);
      expect(new Set(delivered)).toEqual(new Set(k.map((_key, position) => position)));
      for (const batch of plan.flat()) expect(batch.length).toBeGreaterThanOrEqual(1);
      for (const batch of plan.flat()) expect(batch.length).toBeLessThanOrEqual(m === 'duplicated' ? sh.maxBatchSize : sh.maxBatchSize);
    }),
  );
});

test('inOrder keeps stream order on one lane, once each; shuffled is a permutation on one lane', () => {
  fc.assert(
    fc.property(keys, seed, shape, (k, s, sh) => {
      const positions = k.map((_key, position) => position);
      expect(planDelivery('inOrder', k, s, sh).flat(2)).toEqual(positions);
      const shuffled = planDelivery('shuffled', k, s, sh);
      expect(shuffled.length).toBeLessThanOrEqual(1);
      expect([...shuffled.flat(2)].sort((a, b) => a - b)).toEqual(positions);
    }),
  );
});

test('lanes: one partition key always on one lane, in stream order there, never more lanes than asked', () => {
  fc.assert(
    fc.property(keys, seed, shape, (k, s, sh) => {
      const plan = planDelivery('lanes', k, s, sh);
      expect(plan.length).toBeLessThanOrEqual(sh.lanes);
      const laneOfKey = new Map<string, number>();
      plan.forEach((lane, index) => {
        const firsts = lane.flat().filter((position, at, all) => all.indexOf(position) === at);
        expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
        for (const position of firsts) {
          const key = k[position] as string;
          expect(laneOfKey.get(key) ?? index).toBe(index);
          laneOfKey.set(key, index);
        }
      });
    }),
  );
});

test('duplicated repeats records or batches for some seed, and the plans of two seeds differ', () => {
  const k = Array.from({ length: 20 }, (_unused, index) => `pk-${index % 3}`);
  expect(planDelivery('duplicated', k, 1, { lanes: 1, maxBatchSize: 5 }).flat(2).length).toBeGreaterThan(20);
  expect(planDelivery('shuffled', k, 1, { lanes: 1, maxBatchSize: 5 })).not.toEqual(planDelivery('shuffled', k, 2, { lanes: 1, maxBatchSize: 5 }));
});

test('options are validated when the spec is made, naming the option', () => {
  const build = () => {
    throw new Error('not built');
  };
  expect(() => projectionSpec(build, { lanes: 0 })).toThrow(ConfigurationError);
  expect(() => projectionSpec(build, { lanes: 0 })).toThrow(/`lanes`/);
  expect(() => projectionSpec(build, { deliveries: [] })).toThrow(/`deliveries`/);
  expect(() => projectionSpec(build, { deliveries: ['sideways' as 'inOrder'] })).toThrow(/`deliveries`/);
  expect(() => projectionSpec(build, { seed: 1.5 })).toThrow(/`seed`/);
});

test('localClientConfig reads DYNAMODB_ENDPOINT, and says how to set it when it is missing', () => {
  expect(localClientConfig({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).toEqual({
    endpoint: 'http://127.0.0.1:8000',
    region: 'us-east-1',
    credentials: { accessKeyId: 'dynafold', secretAccessKey: 'local' },
  });
  expect(() => localClientConfig({})).toThrow(ConfigurationError);
  expect(() => localClientConfig({})).toThrow(/DYNAMODB_ENDPOINT is not set: add dynafold\/testing's global setup/);
});

test("localClientConfig gives each worker its own endpoint from DYNAMODB_ENDPOINTS, round robin, by jest's or vitest's worker id", () => {
  const endpoints = { DYNAMODB_ENDPOINT: 'http://127.0.0.1:1', DYNAMODB_ENDPOINTS: 'http://127.0.0.1:1,http://127.0.0.1:2' };
  const endpointOf = (env: Record<string, string>) => localClientConfig({ ...endpoints, ...env }).endpoint;
  expect(endpointOf({ JEST_WORKER_ID: '1' })).toBe('http://127.0.0.1:1');
  expect(endpointOf({ JEST_WORKER_ID: '2' })).toBe('http://127.0.0.1:2');
  expect(endpointOf({ JEST_WORKER_ID: '3' })).toBe('http://127.0.0.1:1');
  expect(endpointOf({ VITEST_POOL_ID: '2' })).toBe('http://127.0.0.1:2');
  // No worker id (a script, or a child process started without the environment): the first.
  expect(endpointOf({})).toBe('http://127.0.0.1:1');
  expect(endpointOf({ JEST_WORKER_ID: 'x' })).toBe('http://127.0.0.1:1');
  // Without the list, DYNAMODB_ENDPOINT whatever the worker.
  expect(localClientConfig({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:1', JEST_WORKER_ID: '2' }).endpoint).toBe('http://127.0.0.1:1');
});

test('uniqueTableName: unique, prefixed, and a prefix DynamoDB would refuse is refused', () => {
  const names = new Set(Array.from({ length: 100 }, () => uniqueTableName('orders')));
  expect(names.size).toBe(100);
  for (const name of names) expect(name).toMatch(/^orders-[0-9a-z]+-[0-9a-f]{8}$/);
  expect(() => uniqueTableName('bad name')).toThrow(ConfigurationError);
  expect(() => uniqueTableName('x'.repeat(250))).toThrow(ConfigurationError);
  expect(() => uniqueTableName('')).toThrow(ConfigurationError);
});

/**
 * The reactions guide's example app runs as a user runs it (`npx tsx examples/checkout.ts`) on the suite's
 * DynamoDB Local: the paid orders ship once, the clock moved past 30 minutes cancels the unpaid one once,
 * and its late payment is recorded as ignored. The guide's specs of the same workflow pass.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { paidOrderShips, unpaidOrderIsCancelled } from '../../examples/snippets/reactions/checkout-spec';

const root = join(__dirname, '..', '..');

test('the checkout example ships the paid orders and cancels the unpaid one once its 30 minutes are past', async () => {
  const { stdout } = await promisify(execFile)(join(root, 'node_modules/.bin/tsx'), [join(root, 'examples', 'checkout.ts')], {
    cwd: root,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    timeout: 170_000,
  });
  expect(stdout).toMatch(/^29 minutes on: two sweeps at once fired 0 timer\(s\)$/m);
  expect(stdout).toMatch(/^31 minutes on: two sweeps at once fired 1 timer\(s\)$/m);
  expect(stdout).toMatch(/^and again: two sweeps at once fired 0 timer\(s\)$/m);
  expect(stdout).toMatch(/^o-1 Shipment: ShipmentRequested$/m);
  expect(stdout).toMatch(/^o-3 Shipment: ShipmentRequested$/m);
  expect(stdout).toMatch(/^o-2 Order: {4}OrderPlaced, OrderCancelled$/m);
  expect(stdout).toMatch(/^o-2 Shipment: -$/m);
  expect(stdout).toMatch(/^o-2 Checkout: .*CommandSent, Completed, InputIgnored$/m);
  expect(stdout).toMatch(/records delivered twice, 0 failed/);
  expect(stdout).not.toMatch(/FAIL/);
  expect(stdout).toMatch(/^OK: each order shipped or cancelled, once$/m);
}, 180_000);

test("the guide's specs: unpaid, cancelled once after 30 minutes; paid, shipped once", async () => {
  const unpaid = await unpaidOrderIsCancelled();
  expect(unpaid.deliveries.map((delivery) => delivery.fired)).toEqual([1, 1, 1, 1]);
  const paid = await paidOrderShips();
  expect(paid.deliveries.map((delivery) => delivery.fired)).toEqual([0, 0, 0, 0]);
}, 180_000);

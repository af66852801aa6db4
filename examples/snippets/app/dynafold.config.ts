// What the dynafold command works on: the app's own definitions, and
// the change feed the orders API runs (src/api.ts).
import { defineConfig } from 'dynafold/cli';
import * as customers from './src/customers.js';
import * as orders from './src/orders.js';

export default defineConfig({
  // The app's streams and projections, on the client the command
  // hands out (--endpoint, --region and --profile point it). Table
  // names as in your app.
  setup: ({ client }) => {
    const subjectKeys = customers.subjectKeys(client, 'subject-keys');
    const customerStream = customers.customerStream(
      client,
      'events',
      subjectKeys,
    );
    const customerProfiles = customers.customerProfiles(
      client,
      'views',
    );
    const customerProfileProjection =
      customers.customerProfileProjection(
        customerStream,
        customerProfiles,
      );
    const orderStream = orders.orderStream(client, 'events');
    const orderSummaries = orders.orderSummaries(client, 'views');
    const orderSummaryProjection = orders.orderSummaryProjection(
      orderStream,
      orderSummaries,
    );
    return {
      streams: { customerStream, orderStream },
      projections: [customerProfileProjection, orderSummaryProjection],
      // `tables create` makes its checkpoint table; `status` shows its
      // lease, checkpoints and lag.
      feeds: {
        'orders-api': {
          table: 'events',
          consumer: 'orders-api',
          checkpointTable: 'checkpoints',
        },
      },
    };
  },
});

// What the dynafold command works on: the app's own definitions.
import { defineConfig } from 'dynafold/cli';
import * as orders from './src/orders.js';

export default defineConfig({
  // The app's streams and projections, on the client the command
  // hands out (--endpoint, --region and --profile point it). Table
  // names as in your app.
  setup: ({ client }) => {
    const orderStream = orders.orderStream(client, 'events');
    const orderSummaries = orders.orderSummaries(client, 'views');
    const orderSummaryProjection = orders.orderSummaryProjection(
      orderStream,
      orderSummaries,
    );
    return {
      streams: { orderStream },
      projections: [orderSummaryProjection],
    };
  },
});

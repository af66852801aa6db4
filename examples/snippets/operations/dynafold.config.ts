// #region config
// dynafold.config.ts (`npx dynafold init` writes a starter)
import { defineConfig } from 'dynafold/cli';
import {
  orderEvents as orderStream,
  orderSummaries,
  orderSummaryProjection,
} from '../testing/orders';

const summaryProjection = (client: Parameters<typeof orderStream>[0]) =>
  orderSummaryProjection(
    orderStream(client, 'events'),
    orderSummaries(client, 'views'),
  );

export default defineConfig({
  // --endpoint, --region and --profile override it
  dynamodb: { region: 'eu-west-1' },
  setup: ({ client }) => ({
    streams: { orders: orderStream(client, 'events') },
    projections: { summaries: summaryProjection(client) },
    feeds: {
      summaries: {
        table: 'events',
        consumer: 'summaries',
        checkpointTable: 'checkpoints',
      },
    },
    outboxTables: ['outbox'],
  }),
});
// #endregion config

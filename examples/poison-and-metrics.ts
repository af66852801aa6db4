/**
 * A Lambda handler that parks a poison row instead of holding its shard, logs with a Powertools Logger,
 * and reports the batch metrics to Powertools Metrics (CloudWatch EMF) and to an OpenTelemetry meter.
 * Then the fix is "deployed" and the parked row is replayed.
 *
 *   npx tsx examples/poison-and-metrics.ts
 *
 * With a real OpenTelemetry SDK registered (a MeterProvider with an exporter), the counters below reach
 * it; without one the API's meter is a no-op, as here.
 */
import {
  CreateTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metrics as otel } from '@opentelemetry/api';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import {
  Projection,
  eventsTableDefinition,
  readModelTableDefinition,
} from 'dynafold';
import { lambdaHandler, type BatchMetrics } from 'dynafold/lambda';
import {
  readStreamRecords,
  startDynamoLocal,
  toLambdaRecord,
} from 'dynafold/local';
import {
  orderStream,
  orderSummaries,
  type OrderSummary,
} from './lambda-handler';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] =
  'true';

const logger = new Logger({ serviceName: 'projector' });
const emf = new Metrics({
  namespace: 'dynafold',
  serviceName: 'projector',
});
const meter = otel.getMeter('dynafold');
const counters = {
  eventsApplied: meter.createCounter('dynafold.events.applied'),
  rowsParked: meter.createCounter('dynafold.rows.parked'),
  gapReads: meter.createCounter('dynafold.gap.reads'),
};

/** The batch's figures, as CloudWatch metrics (EMF, flushed after each invocation) and OpenTelemetry counters. */
function report(batch: BatchMetrics): void {
  emf.addMetric('eventsApplied', MetricUnit.Count, batch.eventsApplied);
  emf.addMetric(
    'alreadyApplied',
    MetricUnit.Count,
    batch.alreadyApplied,
  );
  emf.addMetric('rowsWritten', MetricUnit.Count, batch.rowsWritten);
  emf.addMetric('gapReads', MetricUnit.Count, batch.gapReads);
  emf.addMetric('lostRaces', MetricUnit.Count, batch.lostRaces);
  emf.addMetric('rowsParked', MetricUnit.Count, batch.rowsParked);
  emf.addMetric(
    'decodeFailures',
    MetricUnit.Count,
    batch.decodeFailures,
  );
  emf.addMetric(
    'batchDuration',
    MetricUnit.Milliseconds,
    batch.durationMs,
  );
  if (batch.oldestRecordAgeMs !== undefined)
    emf.addMetric(
      'oldestRecordAge',
      MetricUnit.Milliseconds,
      batch.oldestRecordAgeMs,
    );
  counters.eventsApplied.add(batch.eventsApplied);
  counters.rowsParked.add(batch.rowsParked);
  counters.gapReads.add(batch.gapReads);
}

async function main(): Promise<void> {
  const local = await startDynamoLocal({
    jvmArgs: ['-XX:TieredStopAtLevel=1'],
  });
  const client = new DynamoDBClient(local.clientConfig);
  const streams = new DynamoDBStreamsClient(local.clientConfig);
  try {
    const created = await client.send(
      new CreateTableCommand(eventsTableDefinition('order-events')),
    );
    await client.send(
      new CreateTableCommand(
        readModelTableDefinition('order-views', [
          orderSummaries(client, 'order-views'),
        ]),
      ),
    );
    const streamArn = created.TableDescription
      ?.LatestStreamArn as string;
    const orders = orderStream(client, 'order-events');
    const summaries = orderSummaries(client, 'order-views');

    // A deployed bug: evolve chokes on prices over 100, until `fixed` is set.
    let fixed = false;
    const projection = new Projection({
      name: 'order-summaries',
      stream: orders,
      readModel: summaries,
      key: (streamId) => ({ orderId: streamId.orderId }),
      initial: (streamId): OrderSummary => ({
        orderId: streamId.orderId,
        customer: '',
        status: 'new',
        items: 0,
        total: 0,
        version: 0,
      }),
      evolve: (state, event): OrderSummary => {
        if (event.type === 'OrderPlaced')
          return {
            ...state,
            customer: event.data.customer,
            status: 'placed',
          };
        if (event.type === 'OrderShipped')
          return { ...state, status: 'shipped' };
        if (!fixed && event.data.price > 100)
          throw new RangeError(
            `price ${event.data.price} over the limit`,
          );
        return {
          ...state,
          items: state.items + 1,
          total: state.total + event.data.price,
        };
      },
      checkpoint: 'version',
      poison: { park: { afterAttempts: 2 } },
      logger,
    });
    const handler = lambdaHandler({
      projections: [projection],
      logger,
      onMetrics: report,
    });

    await orders.append({ orderId: 'o-1' }, [
      { type: 'OrderPlaced', data: { customer: 'ada' } },
      { type: 'ItemAdded', data: { sku: 'tea', price: 4 } },
    ]);
    await orders.append({ orderId: 'o-2' }, [
      { type: 'OrderPlaced', data: { customer: 'bob' } },
      { type: 'ItemAdded', data: { sku: 'piano', price: 900 } },
    ]);
    const event: DynamoDBStreamEvent = {
      Records: (await readStreamRecords(streams, streamArn)).map(
        (record) => toLambdaRecord(record, { streamArn }),
      ),
    };

    // Two deliveries: the first fails o-2's record (attempt 1), the second parks o-2; o-1 is projected.
    for (let invocation = 1; invocation <= 2; invocation++) {
      const response = await handler(event);
      emf.publishStoredMetrics();
      console.log(
        `invocation ${invocation}: ${response.batchItemFailures.length} record(s) reported failed`,
      );
    }
    for await (const parked of projection.parkedRows())
      console.log(
        `parked: ${JSON.stringify(parked.key)} at ${parked.event.type} v${parked.event.version}: ${parked.error.message}`,
      );

    fixed = true;
    const [replayed] = await projection.retryParked({ orderId: 'o-2' });
    console.log(
      `after the fix: ${replayed?.status}, applied ${replayed?.applied.map((e) => `v${e.version}`).join(', ')}`,
    );
    const row = await summaries.get(
      { orderId: 'o-2' },
      { consistent: true },
    );
    console.log(
      `row o-2: total ${row?.total}, items ${row?.items}, v${row?.version}`,
    );
    if (
      row?.total !== 900 ||
      (await summaries.get({ orderId: 'o-1' }, { consistent: true }))
        ?.total !== 4
    )
      process.exitCode = 1;
  } finally {
    streams.destroy();
    client.destroy();
    await local.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

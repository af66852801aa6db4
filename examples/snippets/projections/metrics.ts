import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metrics as otel } from '@opentelemetry/api';
import { lambdaHandler } from 'dynafold/lambda';
import { OrderSummaryProjection as summaries } from './projection';

const logger = new Logger({ serviceName: 'projector' });
const metrics = new Metrics({
  namespace: 'orders',
  serviceName: 'projector',
});
const applied = otel
  .getMeter('projector')
  .createCounter('events_applied');

// #region metrics
export const handler = lambdaHandler({
  projections: [summaries],
  logger, // new Logger({ serviceName: 'projector' })
  onMetrics: (m) => {
    metrics.addMetric(
      'eventsApplied',
      MetricUnit.Count,
      m.eventsApplied,
    );
    metrics.addMetric('rowsParked', MetricUnit.Count, m.rowsParked);
    if (m.oldestRecordAgeMs !== undefined)
      metrics.addMetric(
        'oldestRecordAge',
        MetricUnit.Milliseconds,
        m.oldestRecordAgeMs,
      );
    applied.add(m.eventsApplied); // an OpenTelemetry counter
  },
});
// #endregion metrics

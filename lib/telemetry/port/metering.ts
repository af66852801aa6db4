import type { MeterProvider } from '@opentelemetry/api';
import { Metrics, type MetricDefinition } from '../names';
import { guarded } from './guard';
import { otel, type OtelApi } from './otel-api';
import { SCOPE } from './scope';
import type { AttributeMap } from './tracing';

/** Records one measurement of an instrument (adds to a counter, records in a histogram); never throws. */
export type Measure = (value: number, attributes: AttributeMap) => void;

/** One `Measure` per metric of the table `Metrics`. */
export type Instruments = { readonly [K in keyof typeof Metrics]: Measure };

/** The instruments of the meter provider registered when they were made; `undefined` for none. */
let cached: { readonly provider: MeterProvider; readonly instruments: Instruments | undefined } | undefined;

/**
 * The instruments of the registered meter provider, or `undefined` when there is none (no API, or no SDK
 * registered), or when the app's SDK threw while they were made (a metric reader or view): callers skip
 * computing what nobody records. Made again when the app registers another provider, since the API hands
 * out no proxy meters.
 */
export function instruments(): Instruments | undefined {
  const api = otel();
  if (api === undefined) return undefined;
  const provider = api.metrics.getMeterProvider();
  if (cached?.provider === provider) return cached.instruments;
  const made = guarded('make instruments', undefined, () => make(api, provider));
  cached = { provider, instruments: made };
  return made;
}

function make(api: OtelApi, provider: MeterProvider): Instruments | undefined {
  const meter = provider.getMeter(SCOPE.name, SCOPE.version);
  if (meter === api.createNoopMeter()) return undefined;
  const entries = Object.entries(Metrics).map(([key, definition]: [string, MetricDefinition]): [string, Measure] => {
    const options = { unit: definition.unit, description: definition.description };
    if (definition.kind === 'counter') {
      const counter = meter.createCounter(definition.name, options);
      return [key, (value, attributes) => guarded('record a measurement', undefined, () => counter.add(value, attributes))];
    }
    const histogram = meter.createHistogram(definition.name, options);
    return [key, (value, attributes) => guarded('record a measurement', undefined, () => histogram.record(value, attributes))];
  });
  return Object.fromEntries(entries) as Instruments;
}

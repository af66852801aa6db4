import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../errors';
import { readStreamRecords, toLambdaRecord } from '../local';
import { lambdaHandler, type LambdaStreamRecord } from '../lambda';
import { outboxTableDefinition, type AnyProjection, type RowOfModel } from '../projector';
import { decodeImages, decoder, type AnyEventStream, type EventStream, type NewEventOf, type StreamIdOf } from '../store';
import { readModelTableDefinition, type ReadModel } from '../read-model';
import { requireInteger } from '../util';
import { assertEqual, callSite, reportedAt } from './assertion';
import { DeliveryModes, planDelivery, type DeliveryMode } from './delivery-plan';
import { localClientConfig } from './environment';
import { freshSeed } from './random';
import { createTables, createTestTables, deleteTables, uniqueTableName } from './tables';
import { deliverLanes, eventId, type DeliveryLedger, type OnSpecBatch } from './lambda-delivery';

/** Defaults of {@link projectionSpec}, in one place. */
export const ProjectionSpecDefaults = {
  /** Lanes of the `lanes` delivery (Lambda's largest ParallelizationFactor). */
  lanes: 10,
  /** Batches hold 1 to this many records. */
  maxBatchSize: 10,
  /** A batch still failing after this many deliveries fails the spec instead of hanging it. */
  maxTriesPerBatch: 40,
} as const;

/** A projection folding one stream, or several (multi-source), into one read model. */
export type SpecProjection = AnyProjection & { readonly readModel: ReadModel };

/** The tables a projection spec made for one delivery, handed to the projection's factory. */
export interface ProjectionSpecTables {
  readonly events: string;
  readonly readModels: string;
  /** An outbox table, with `outbox: true`. */
  readonly outbox: string | undefined;
}

/** Options of {@link projectionSpec}. */
export interface ProjectionSpecOptions {
  /** The deliveries to run, each on fresh read-model rows. @defaultValue every {@link DeliveryModes} */
  readonly deliveries?: ReadonlyArray<DeliveryMode> | undefined;
  /** Seeds every random choice; printed when the spec fails. @defaultValue `DYNAFOLD_SPEC_SEED`, else random */
  readonly seed?: number | undefined;
  /** @defaultValue 10 ({@link ProjectionSpecDefaults}) */
  readonly lanes?: number | undefined;
  /** @defaultValue 10 ({@link ProjectionSpecDefaults}) */
  readonly maxBatchSize?: number | undefined;
  /** @defaultValue 40 ({@link ProjectionSpecDefaults}) */
  readonly maxTriesPerBatch?: number | undefined;
  /** Also make an outbox table for each delivery. @defaultValue false */
  readonly outbox?: boolean | undefined;
  /** Where DynamoDB Local is. @defaultValue {@link localClientConfig}() */
  readonly clientConfig?: DynamoDBClientConfig | undefined;
}

type StreamOf<P> = P extends { readonly stream: infer S } ? S : AnyEventStream;
type NewEventOfStream<S> =
  S extends EventStream<string, ReadonlyArray<string>, infer E> ? NewEventOf<E> : { readonly type: string; readonly data: unknown };
type IdOfStream<S> = S extends EventStream<string, infer F, never> ? StreamIdOf<F> : Readonly<Record<string, string>>;

/** Events to append before the delivery: one append per entry, in order. */
export interface Given<P> {
  /** The stream's name; needed only when the projection folds several streams. */
  readonly stream?: string | undefined;
  readonly streamId: IdOfStream<StreamOf<P>> | string;
  readonly events: ReadonlyArray<NewEventOfStream<StreamOf<P>>>;
}

/** A row the read model must hold after every delivery (`row: undefined`: no row): every field, hidden ones too, but `createdAt` and `updatedAt`. */
export interface ExpectedRow<P> {
  readonly key: P extends { readonly readModel: infer M extends ReadModel } ? Parameters<M['get']>[0] : Readonly<Record<string, unknown>>;
  readonly row: (P extends { readonly readModel: infer M } ? RowOfModel<M> : Readonly<Record<string, unknown>>) | undefined;
}

/** What one delivery did. */
export interface DeliveryReport {
  readonly mode: DeliveryMode;
  /** Calls of the Lambda handler, redeliveries and retries included. */
  readonly batches: number;
  /** Batches delivered again from their first reported failure. */
  readonly retries: number;
  /** Events applied, counted over every call (each exactly once when the spec passes). */
  readonly applied: number;
  /** Redelivered events the rows already had. */
  readonly alreadyApplied: number;
}

/** What a passing projection spec ran. */
export interface ProjectionSpecResult {
  readonly seed: number;
  /** The events given (each delivery applied or set aside every one), not the records that held them. */
  readonly events: number;
  readonly deliveries: ReadonlyArray<DeliveryReport>;
}

/** What a custom check of {@link ProjectionSpecWhen.thenRows} gets after each delivery. */
export interface DeliveryView<P extends SpecProjection> {
  readonly mode: DeliveryMode;
  readonly seed: number;
  readonly projection: P;
  readonly report: DeliveryReport;
}

/** A projection spec with its given events; `thenRows` runs it. */
export interface ProjectionSpecWhen<P extends SpecProjection> {
  /**
   * Delivers the given events' real stream records through `lambdaHandler`, once per delivery mode on
   * fresh rows, then checks that the rows equal `rows` and that every event was applied exactly once
   * (never twice; and once, unless `skipEvent`, `terminal` or an undefined key set it aside). Runs
   * `check` after each delivery for assertions of your own. Rejects with a `SpecAssertionError`
   * naming the delivery and the seed.
   */
  thenRows(rows: ReadonlyArray<ExpectedRow<P>>, check?: (view: DeliveryView<P>) => void | Promise<void>): Promise<ProjectionSpecResult>;
}

/** A projection spec: `given` the events, then the rows. */
export interface ProjectionSpec<P extends SpecProjection> {
  given(events: ReadonlyArray<Given<P>>): ProjectionSpecWhen<P>;
}

/**
 * A given/then spec of a projection against DynamoDB Local: the given events are appended to a fresh
 * events table, their stream records read back with the Streams API and delivered to the projection
 * the ways Lambda may deliver them: in order, shuffled, duplicated, and on ten lanes with retries. Each
 * delivery gets a fresh read-model table; `build` makes the projection on the tables it is handed.
 * Needs `@aws-sdk/client-dynamodb-streams`, and the kit's global setup (or `clientConfig`).
 *
 * @example
 * ```ts
 * test('an order summary counts its items', () =>
 *   projectionSpec(({ events, readModels }) => orderSummaries(client, events, readModels))
 *     .given([{ streamId: { orderId: 'o-1' }, events: [placed('ada'), itemAdded('book', 12)] }])
 *     .thenRows([{ key: { orderId: 'o-1' }, row: { orderId: 'o-1', customer: 'ada', items: 1, total: 12, version: 2 } }]))
 * ```
 */
export function projectionSpec<P extends SpecProjection>(
  build: (tables: ProjectionSpecTables) => P,
  options: ProjectionSpecOptions = {},
): ProjectionSpec<P> {
  const settings = resolveOptions(options);
  return {
    given: (given) => ({
      thenRows: function thenRows(rows, check) {
        const site = callSite(thenRows);
        return reportedAt(site, () => runSpec(build, settings, given as ReadonlyArray<Given<SpecProjection>>, rows, check));
      },
    }),
  };
}

// Every option resolved: `-?` with `Exclude` also drops the `| undefined` the options admit, which `Required`
// keeps under exactOptionalPropertyTypes (the setting of an app that compiles this file through the docs' snippets).
type Settings = { [K in Exclude<keyof ProjectionSpecOptions, 'clientConfig' | 'seed'>]-?: Exclude<ProjectionSpecOptions[K], undefined> } & {
  seed: number;
  clientConfig: DynamoDBClientConfig | undefined;
};

function resolveOptions(options: ProjectionSpecOptions): Settings {
  const where = 'projectionSpec';
  const deliveries = options.deliveries ?? DeliveryModes;
  if (!Array.isArray(deliveries) || deliveries.length === 0 || deliveries.some((mode) => !DeliveryModes.includes(mode))) {
    throw new ConfigurationError(`${where}: expected \`deliveries\` to list some of ${DeliveryModes.join(', ')}.`);
  }
  return {
    deliveries,
    seed: options.seed === undefined ? freshSeed() : requireInteger('seed', options.seed, 0, Number.MAX_SAFE_INTEGER, where),
    lanes: requireInteger('lanes', options.lanes ?? ProjectionSpecDefaults.lanes, 1, 100, where),
    maxBatchSize: requireInteger('maxBatchSize', options.maxBatchSize ?? ProjectionSpecDefaults.maxBatchSize, 1, 10_000, where),
    maxTriesPerBatch: requireInteger('maxTriesPerBatch', options.maxTriesPerBatch ?? ProjectionSpecDefaults.maxTriesPerBatch, 1, 1_000, where),
    outbox: options.outbox === true,
    clientConfig: options.clientConfig,
  };
}

async function runSpec<P extends SpecProjection>(
  build: (tables: ProjectionSpecTables) => P,
  settings: Settings,
  given: ReadonlyArray<Given<SpecProjection>>,
  rows: ReadonlyArray<ExpectedRow<P>>,
  check: ((view: DeliveryView<P>) => void | Promise<void>) | undefined,
): Promise<ProjectionSpecResult> {
  const config = settings.clientConfig ?? localClientConfig();
  const client = new DynamoDBClient(config);
  const fixture = await createTestTables(client, { prefix: 'spec' });
  try {
    const events = fixture.events as string;
    let records: LambdaStreamRecord[] | undefined;
    const reports: DeliveryReport[] = [];
    for (const mode of settings.deliveries) {
      const tables = { events, readModels: uniqueTableName('spec-views'), outbox: settings.outbox ? uniqueTableName('spec-outbox') : undefined };
      const projection = build(tables);
      const made = await createTables(client, [
        readModelTableDefinition(tables.readModels, [projection.readModel]),
        ...(tables.outbox === undefined ? [] : [outboxTableDefinition(tables.outbox)]),
      ]);
      try {
        records ??= await appendAndRead(projection, given, config, fixture.eventsStreamArn as string);
        const header =
          `Projection spec of ${projection.name} failed on delivery '${mode}' (seed ${settings.seed}: replay it with ` +
          `{ seed: ${settings.seed}, deliveries: ['${mode}'] } or DYNAFOLD_SPEC_SEED=${settings.seed})`;
        const report = await deliverOnce(projection, records, mode, settings, header);
        await checkRows(projection, rows, header, settings.seed);
        if (check !== undefined) await withHeader(header, () => check({ mode, seed: settings.seed, projection, report }));
        reports.push(report);
      } finally {
        await deleteTables(client, [...made.keys()]);
      }
    }
    // A record is an append's commit, of one event or several: count the events.
    return { seed: settings.seed, events: given.reduce((sum, entry) => sum + entry.events.length, 0), deliveries: reports };
  } finally {
    await fixture.delete();
    client.destroy();
  }
}

/** Appends the given events through the projection's streams and reads their records back, in Lambda's shape. */
async function appendAndRead(
  projection: SpecProjection,
  given: ReadonlyArray<Given<SpecProjection>>,
  config: DynamoDBClientConfig,
  streamArn: string,
): Promise<LambdaStreamRecord[]> {
  for (const [index, entry] of given.entries()) {
    const stream = streamOf(projection, entry.stream, index) as EventStream;
    await stream.append(entry.streamId, entry.events);
  }
  // Loaded here, not with the module: only a projection spec needs the Streams client.
  const { DynamoDBStreamsClient } = await import('@aws-sdk/client-dynamodb-streams');
  const streams = new DynamoDBStreamsClient(config);
  try {
    const region = typeof config.region === 'string' ? config.region : undefined;
    return (await readStreamRecords(streams, streamArn)).map((record) =>
      toLambdaRecord(record, { streamArn, ...(region === undefined ? {} : { region }) }),
    );
  } finally {
    streams.destroy();
  }
}

function streamOf(projection: SpecProjection, name: string | undefined, index: number): AnyEventStream {
  const streams = projection.streams;
  const stream = name === undefined && streams.length === 1 ? streams[0] : streams.find((candidate) => candidate.name === name);
  if (stream === undefined) {
    throw new ConfigurationError(
      `projectionSpec: given[${index}] needs \`stream\`, one of ${streams.map((s) => s.name).join(', ')} (the streams ${projection.name} folds).`,
    );
  }
  return stream;
}

/** Delivers the records once as `mode` says and checks that every event was applied exactly once. */
async function deliverOnce(
  projection: SpecProjection,
  records: ReadonlyArray<LambdaStreamRecord>,
  mode: DeliveryMode,
  settings: Settings,
  header: string,
): Promise<DeliveryReport> {
  const decode = decoder(Object.fromEntries(projection.streams.map((stream) => [stream.name, stream])));
  // A record is an append's commit: the ids of its events.
  const eventIds = (
    await decodeImages(
      decode,
      records.map((record) => record.dynamodb?.NewImage ?? {}),
    )
  ).map((outcome) => {
    if ('error' in outcome) throw outcome.error;
    return (outcome.decoded?.events ?? []).map(eventId);
  });
  const plan = planDelivery(
    mode,
    records.map((record) => JSON.stringify(record.dynamodb?.Keys?.['pk'] ?? '')),
    settings.seed,
    settings,
  );
  const ledger: DeliveryLedger = { applied: new Map(), alreadyApplied: 0, setAside: new Set(), batches: 0, retries: 0 };
  const handler = (onBatch: OnSpecBatch) => lambdaHandler({ projections: [projection], onBatch });
  await deliverLanes(plan, records, handler, ledger, { maxTries: settings.maxTriesPerBatch, header, seed: settings.seed });

  const twice = [...ledger.applied].filter(([, count]) => count > 1).map(([id, count]) => `${id} (${count} times)`);
  assertEqual('events applied more than once', twice, [], { header, seed: settings.seed });
  const missing = eventIds.flat().filter((id) => !ledger.applied.has(id) && !ledger.setAside.has(id));
  assertEqual('events never applied', [...new Set(missing)], [], { header, seed: settings.seed });
  return {
    mode,
    batches: ledger.batches,
    retries: ledger.retries,
    applied: [...ledger.applied.values()].reduce((sum, count) => sum + count, 0),
    alreadyApplied: ledger.alreadyApplied,
  };
}

async function checkRows<P extends SpecProjection>(projection: P, rows: ReadonlyArray<ExpectedRow<P>>, header: string, seed: number): Promise<void> {
  const actual = await Promise.all(
    rows.map(async ({ key }) => {
      const stored = await projection.readModel.get(key, { consistent: true, includeHidden: true });
      if (stored === undefined) return { key, row: undefined };
      const { createdAt: _created, updatedAt: _updated, ...row } = stored as Record<string, unknown>;
      return { key, row };
    }),
  );
  assertEqual(
    'rows',
    actual,
    rows.map(({ key, row }) => ({ key, row })),
    { header, seed },
  );
}

/** Runs a check of the caller's; an error it throws is told which delivery and seed it failed on. */
async function withHeader(header: string, check: () => void | Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (error instanceof Error) error.message = `${header}\n${error.message}`;
    throw error;
  }
}

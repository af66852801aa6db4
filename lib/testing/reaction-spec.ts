import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../errors';
import { readStreamRecords, toLambdaRecord } from '../local';
import { lambdaHandler, type LambdaStreamRecord } from '../lambda';
import { outboxTableDefinition } from '../projector';
import { reactionsTableDefinition, sweepTimers, type Reaction } from '../reactions';
import { decodeImages, decoder, eventsTableDefinition, type AnyEventStream, type EventStream } from '../store';
import { requireInteger } from '../util';
import { assertEqual } from './assertion';
import { DeliveryModes, planDelivery, type DeliveryMode } from './delivery-plan';
import { localClientConfig } from './environment';
import { deliverLanes, eventId, type DeliveryLedger, type OnSpecBatch } from './lambda-delivery';
import { ProjectionSpecDefaults } from './projection-spec';
import { freshSeed } from './random';
import { createTables, deleteTables, uniqueTableName } from './tables';
import { TestClock } from './test-clock';

/** The tables (and the clock) a reaction spec made for one delivery, handed to its factory. */
export interface ReactionSpecTables {
  readonly client: DynamoDBClient;
  /** The events table: the given events' streams, the targets' and a workflow's. */
  readonly events: string;
  /** The reactions table: progress rows and timers. */
  readonly reactions: string;
  /** An outbox table, for `message` effects. */
  readonly outbox: string;
  /** The clock of the reaction's timers (`DynamoTimers`' `clock`), which `after` moves. */
  readonly clock: TestClock;
}

/** What a reaction spec's factory builds: the reaction (or workflow), and the streams its effects write, which `thenEvents` reads. */
export interface ReactionSpecSubject<R extends Reaction> {
  readonly reaction: R;
  readonly targets: ReadonlyArray<AnyEventStream>;
}

/** Events to append before the delivery: one append per entry, in order. */
export interface GivenEvents {
  /** The stream's name; needed only when the reaction takes several streams. */
  readonly stream?: string | undefined;
  readonly streamId: Readonly<Record<string, string>> | string;
  readonly events: ReadonlyArray<{
    readonly type: string;
    readonly data: unknown;
    readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  }>;
}

/** The events a target stream instance must hold after every delivery, each type and data, in order. */
export interface ExpectedEvents {
  /** The stream's name (one of the factory's `targets`). */
  readonly stream: string;
  readonly streamId: Readonly<Record<string, string>> | string;
  readonly events: ReadonlyArray<{ readonly type: string; readonly data: unknown }>;
}

/** Options of {@link reactionSpec}. */
export interface ReactionSpecOptions {
  /** The deliveries to run, each on fresh tables. @defaultValue every {@link DeliveryModes} */
  readonly deliveries?: ReadonlyArray<DeliveryMode> | undefined;
  /** Seeds every random choice; printed when the spec fails. @defaultValue `DYNAFOLD_SPEC_SEED`, else random */
  readonly seed?: number | undefined;
  /** @defaultValue 10 ({@link ProjectionSpecDefaults}) */
  readonly lanes?: number | undefined;
  /** @defaultValue 10 ({@link ProjectionSpecDefaults}) */
  readonly maxBatchSize?: number | undefined;
  /** @defaultValue 40 ({@link ProjectionSpecDefaults}) */
  readonly maxTriesPerBatch?: number | undefined;
  /**
   * Make the first write of each source instance's progress lose a race (refused before it is sent), so
   * that `react`, `decide` and the deciders run again: an effect a handler writes itself, outside its
   * effects, then shows twice. @defaultValue true
   */
  readonly lostRaces?: boolean | undefined;
  /** Where DynamoDB Local is. @defaultValue {@link localClientConfig}() */
  readonly clientConfig?: DynamoDBClientConfig | undefined;
}

/** What one delivery of a reaction spec did. */
export interface ReactionDeliveryReport {
  readonly mode: DeliveryMode;
  /** Calls of the Lambda handler, redeliveries and retries included. */
  readonly batches: number;
  readonly retries: number;
  /** Events reacted to, counted over every call (each exactly once when the spec passes). */
  readonly applied: number;
  /** Timers fired by the sweeps of `after`. */
  readonly fired: number;
}

/** What a passing reaction spec ran. */
export interface ReactionSpecResult {
  readonly seed: number;
  readonly events: number;
  readonly deliveries: ReadonlyArray<ReactionDeliveryReport>;
}

/** What a custom check of {@link ReactionSpecWhen.thenEvents} gets after each delivery. */
export interface ReactionSpecView<R extends Reaction> extends ReactionSpecSubject<R> {
  readonly mode: DeliveryMode;
  readonly seed: number;
  readonly report: ReactionDeliveryReport;
  readonly tables: ReactionSpecTables;
}

/** A reaction spec with its given events: `after` moves the clock, `thenEvents` runs it. */
export interface ReactionSpecWhen<R extends Reaction> {
  /**
   * Once the events are delivered, moves the clock `ms` forward and sweeps the reaction's timers: twice at
   * once, then again, so that a timer is seen fired once however often it is swept. Chain it for several steps.
   */
  after(ms: number): ReactionSpecWhen<R>;
  /**
   * Delivers the given events' real stream records through `lambdaHandler`, once per delivery mode on
   * fresh tables, runs the `after` steps, then checks that every event was reacted to exactly once and
   * that each listed target instance holds exactly `events` (types and data, in order): a command written
   * twice is an event too many. Runs `check` after each delivery. Rejects with a `SpecAssertionError`
   * naming the delivery and the seed.
   */
  thenEvents(expected: ReadonlyArray<ExpectedEvents>, check?: (view: ReactionSpecView<R>) => void | Promise<void>): Promise<ReactionSpecResult>;
}

/** A reaction spec: `given` the events, then the target streams' events. */
export interface ReactionSpec<R extends Reaction> {
  given(events: ReadonlyArray<GivenEvents>): ReactionSpecWhen<R>;
}

/**
 * A given/then spec of a reaction or a workflow against DynamoDB Local: the given events are appended to
 * a fresh events table, their stream records read back with the Streams API and delivered the ways Lambda
 * may deliver them (in order, shuffled, duplicated, on ten lanes with retries); `after` moves the test
 * clock and sweeps the timers; then the target streams must hold the expected events, each effect once.
 * Each delivery gets fresh tables; `build` makes the reaction on the tables and clock it is handed. Needs
 * `@aws-sdk/client-dynamodb-streams`, and the kit's global setup (or `clientConfig`).
 *
 * @example
 * ```ts
 * test('an unpaid order is cancelled after 30 minutes', () =>
 *   reactionSpec((tables) => checkout(tables))
 *     .given([{ stream: 'Order', streamId: { orderId: 'o-1' }, events: [placed(30)] }])
 *     .after(31 * 60_000)
 *     .thenEvents([{ stream: 'Order', streamId: { orderId: 'o-1' }, events: [placed(30), cancelled] }]))
 * ```
 */
export function reactionSpec<R extends Reaction>(
  build: (tables: ReactionSpecTables) => ReactionSpecSubject<R>,
  options: ReactionSpecOptions = {},
): ReactionSpec<R> {
  const settings = resolveOptions(options);
  const when = (given: ReadonlyArray<GivenEvents>, steps: ReadonlyArray<number>): ReactionSpecWhen<R> => ({
    after: (ms) => when(given, [...steps, requireInteger('ms', ms, 0, undefined, 'reactionSpec.after')]),
    thenEvents: (expected, check) => runSpec(build, settings, given, steps, expected, check),
  });
  return { given: (given) => when(given, []) };
}

// Each option resolved: present and defined (Required alone keeps `| undefined` under exactOptionalPropertyTypes).
type Settings = { readonly [K in Exclude<keyof ReactionSpecOptions, 'clientConfig'>]-?: Exclude<ReactionSpecOptions[K], undefined> } & {
  readonly clientConfig: DynamoDBClientConfig | undefined;
};

function resolveOptions(options: ReactionSpecOptions): Settings {
  const where = 'reactionSpec';
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
    lostRaces: options.lostRaces !== false,
    clientConfig: options.clientConfig,
  };
}

async function runSpec<R extends Reaction>(
  build: (tables: ReactionSpecTables) => ReactionSpecSubject<R>,
  settings: Settings,
  given: ReadonlyArray<GivenEvents>,
  steps: ReadonlyArray<number>,
  expected: ReadonlyArray<ExpectedEvents>,
  check: ((view: ReactionSpecView<R>) => void | Promise<void>) | undefined,
): Promise<ReactionSpecResult> {
  const config = settings.clientConfig ?? localClientConfig();
  const reports: ReactionDeliveryReport[] = [];
  for (const mode of settings.deliveries) {
    const client = new DynamoDBClient(config);
    try {
      const tables = {
        client,
        events: uniqueTableName('spec-events'),
        reactions: uniqueTableName('spec-reactions'),
        outbox: uniqueTableName('spec-outbox'),
      };
      const made = await createTables(client, [
        eventsTableDefinition(tables.events),
        reactionsTableDefinition(tables.reactions),
        outboxTableDefinition(tables.outbox),
      ]);
      if (settings.lostRaces) loseFirstRaces(client, tables.reactions);
      try {
        const header =
          `Reaction spec failed on delivery '${mode}' (seed ${settings.seed}: replay it with ` +
          `{ seed: ${settings.seed}, deliveries: ['${mode}'] } or DYNAFOLD_SPEC_SEED=${settings.seed})`;
        const clock = new TestClock();
        const subject = build({ ...tables, clock });
        const records = await appendAndRead(subject.reaction, given, config, made.get(tables.events) as string);
        const delivered = await deliverOnce(subject.reaction, records, mode, settings, header);
        const fired = await runSteps(subject.reaction, clock, steps);
        const report = { ...delivered, fired };
        await checkEvents(subject, expected, header, settings.seed);
        if (check !== undefined)
          await withHeader(header, () => check({ ...subject, mode, seed: settings.seed, report, tables: { ...tables, clock } }));
        reports.push(report);
      } finally {
        await deleteTables(client, [...made.keys()]);
      }
    } finally {
      client.destroy();
    }
  }
  return { seed: settings.seed, events: given.reduce((sum, entry) => sum + entry.events.length, 0), deliveries: reports };
}

/**
 * Refuses the first write of each progress row in `table` before it is sent, as a rival's write would:
 * the row is read and its events folded again. Middleware on the spec's own client; nothing is faked but
 * the refusal.
 */
function loseFirstRaces(client: DynamoDBClient, table: string): void {
  const raced = new Set<string>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = (args as { input?: Record<string, unknown> }).input ?? {};
      const row = progressRowOf(context.commandName, input, table);
      if (row === undefined || raced.has(row)) return next(args);
      raced.add(row);
      if (context.commandName?.startsWith('TransactWrite') === true) {
        throw Object.assign(new Error('Transaction cancelled (a race lost on purpose by the spec)'), {
          name: 'TransactionCanceledException',
          CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
          $metadata: {},
        });
      }
      throw Object.assign(new Error('The conditional request failed (a race lost on purpose by the spec)'), {
        name: 'ConditionalCheckFailedException',
        $metadata: {},
      });
    },
    { step: 'initialize', name: 'reactionSpecLostRaces' },
  );
}

/** The key of the progress row a write (a Put, alone or first in a transaction) writes in `table`, or `undefined`. */
function progressRowOf(command: string | undefined, input: Readonly<Record<string, unknown>>, table: string): string | undefined {
  const put =
    command === 'PutCommand' || command === 'PutItemCommand'
      ? input
      : command === 'TransactWriteCommand' || command === 'TransactWriteItemsCommand'
        ? ((input['TransactItems'] as ReadonlyArray<{ Put?: Record<string, unknown> }> | undefined)?.[0]?.Put ?? {})
        : {};
  if (put['TableName'] !== table) return undefined;
  const item = put['Item'] as Record<string, unknown> | undefined;
  // A progress row's sort key is its reaction's name; a timer's is `#timer`. The client's middleware sees
  // the document client's items marshalled (`{ S: '...' }`).
  const text = (value: unknown) => (typeof value === 'string' ? value : (value as { S?: unknown } | undefined)?.S);
  const sk = text(item?.['sk']);
  return typeof sk === 'string' && !sk.startsWith('#') ? String(text(item?.['pk'])) : undefined;
}

/** Appends the given events through the reaction's streams and reads their records back, in Lambda's shape. */
async function appendAndRead(reaction: Reaction, given: ReadonlyArray<GivenEvents>, config: DynamoDBClientConfig, streamArn: string) {
  for (const [index, entry] of given.entries()) {
    const streams = reaction.streams;
    const stream = entry.stream === undefined && streams.length === 1 ? streams[0] : streams.find((candidate) => candidate.name === entry.stream);
    if (stream === undefined) {
      throw new ConfigurationError(
        `reactionSpec: given[${index}] needs \`stream\`, one of ${streams.map((s) => s.name).join(', ')} (the streams ${reaction.name} takes).`,
      );
    }
    await (stream as unknown as EventStream).append(entry.streamId, entry.events);
  }
  // Loaded here, not with the module: only a spec needs the Streams client.
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

/** Delivers the records once as `mode` says and checks that every event was reacted to exactly once. */
async function deliverOnce(reaction: Reaction, records: ReadonlyArray<LambdaStreamRecord>, mode: DeliveryMode, settings: Settings, header: string) {
  const decode = decoder(Object.fromEntries(reaction.streams.map((stream) => [stream.name, stream])));
  const decoded = await decodeImages(
    decode,
    records.map((record) => record.dynamodb?.NewImage ?? {}),
  );
  const eventIds = decoded.flatMap((outcome) => {
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
  const handler = (onBatch: OnSpecBatch) => lambdaHandler({ projections: [reaction], onBatch });
  await deliverLanes(plan, records, handler, ledger, { maxTries: settings.maxTriesPerBatch, header, seed: settings.seed });
  const twice = [...ledger.applied].filter(([, count]) => count > 1).map(([id, count]) => `${id} (${count} times)`);
  assertEqual('events reacted to more than once', twice, [], { header, seed: settings.seed });
  const missing = eventIds.filter((id) => !ledger.applied.has(id) && !ledger.setAside.has(id));
  assertEqual('events never reacted to', [...new Set(missing)], [], { header, seed: settings.seed });
  return { mode, batches: ledger.batches, retries: ledger.retries, applied: [...ledger.applied.values()].reduce((sum, count) => sum + count, 0) };
}

/** Moves the clock by each step and sweeps the timers twice at once, then again; resolves the timers fired. */
async function runSteps(reaction: Reaction, clock: TestClock, steps: ReadonlyArray<number>): Promise<number> {
  if (steps.length === 0) return 0;
  const timers = reaction.timers;
  if (timers === undefined)
    throw new ConfigurationError(
      `reactionSpec: ${reaction.name} has no \`timers\` for \`after\` to fire: give it a DynamoTimers on the spec's clock.`,
    );
  let fired = 0;
  for (const ms of steps) {
    clock.advance(ms);
    const sweeps = await Promise.all([1, 2].map(() => sweepTimers({ timers, owners: [reaction], logger: false })));
    const again = await sweepTimers({ timers, owners: [reaction], logger: false });
    for (const sweep of [...sweeps, again]) {
      fired += sweep.fired;
      const [failure] = sweep.failed;
      if (failure !== undefined) throw failure.error;
    }
  }
  return fired;
}

async function checkEvents<R extends Reaction>(
  subject: ReactionSpecSubject<R>,
  expected: ReadonlyArray<ExpectedEvents>,
  header: string,
  seed: number,
) {
  const actual = await Promise.all(
    expected.map(async ({ stream: name, streamId }) => {
      const stream = subject.targets.find((target) => target.name === name);
      if (stream === undefined) throw new ConfigurationError(`reactionSpec: ${name} is none of the factory's \`targets\`.`);
      const events = await (stream as unknown as EventStream).read(streamId);
      return { stream: name, streamId, events: events.map(({ type, data }) => ({ type, data })) };
    }),
  );
  assertEqual(
    'target streams',
    actual,
    expected.map(({ stream, streamId, events }) => ({ stream, streamId, events: events.map(({ type, data }) => ({ type, data })) })),
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

import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { CheckpointTable } from '../../dynamo';
import { outboxTableDefinition } from '../../projector';
import { eventsTableDefinition } from '../../store';
import { readModelTableDefinition, type ReadModel } from '../../read-model';
import { subjectKeysTableDefinition } from '../../erasure';
import { Reaction, reactionsTableDefinition } from '../../reactions';
import { TimerDefaults } from '../../timers';
import { keyStoresOf } from './forget';
import type { CommandContext } from '../context';
import { ExitCodes } from '../exit-codes';
import { colours } from '../output';
import { tableFit } from './table-fit';

/** How long a new table may take to become ACTIVE (the SDK's waiter polls it). */
const TABLE_WAIT_SECONDS = 300;

/** Every table the config uses, as the library defines them. */
function definitionsOf(context: CommandContext): Array<{ kind: string; definition: CreateTableCommandInput; ttl?: string }> {
  const { model } = context;
  const projections = Object.values(context.projections);
  const streams = [...Object.values(model.streams ?? {}), ...projections.flatMap((p) => p.streams)];
  const eventTables = new Set(streams.map((stream) => stream.table));
  // Sentinels expire on the attribute their streams name (a table has one TTL attribute).
  const sentinelTtl = (table: string) => streams.find((stream) => stream.table === table && stream.sentinelTtl !== undefined)?.sentinelTtl?.attribute;
  const models = new Map<string, ReadModel[]>();
  // A reaction's progress rows and the timers live in a reactions table, with the timers' due-time index.
  const reactionTables = new Set([
    ...projections.flatMap((projection) => (projection instanceof Reaction ? [projection.readModel.table] : [])),
    ...(model.timers ?? []).map((timers) => timers.table),
  ]);
  for (const projection of projections) {
    if (projection instanceof Reaction) continue;
    const { readModel } = projection;
    const list = models.get(readModel.table) ?? [];
    if (!list.includes(readModel)) list.push(readModel);
    models.set(readModel.table, list);
  }
  return [
    ...[...eventTables].map((table) => ({ kind: 'events', definition: eventsTableDefinition(table), ttl: sentinelTtl(table) })),
    ...[...models].map(([table, readModels]) => ({ kind: 'read models', definition: readModelTableDefinition(table, readModels) })),
    ...[...reactionTables].map((table) => ({ kind: 'reactions', definition: reactionsTableDefinition(table), ttl: TimerDefaults.ttlAttribute })),
    ...(model.outboxTables ?? []).map((table) => ({ kind: 'outbox', definition: outboxTableDefinition(table) })),
    ...keyStoresOf(context).map((keys) => ({ kind: 'subject keys', definition: subjectKeysTableDefinition(keys.table) })),
    ...[...new Set(Object.values(model.feeds ?? {}).map((feed) => feed.checkpointTable))].map((table) => ({
      kind: 'checkpoints',
      definition: CheckpointTable.definition(table),
      ttl: CheckpointTable.ttlAttribute,
    })),
  ];
}

interface TableOutcome {
  readonly table: string;
  readonly kind: string;
  readonly created: boolean;
  /** What was turned on in an existing table (a stream, TTL). */
  readonly updated: ReadonlyArray<string>;
  /** What only another table fixes; the command fails when there is any. */
  readonly problems: ReadonlyArray<string>;
}

const waitActive = (context: CommandContext, table: string) =>
  waitUntilTableExists({ client: context.client, maxWaitTime: TABLE_WAIT_SECONDS }, { TableName: table });

const enableTtl = (context: CommandContext, table: string, attribute: string) =>
  context.client.send(new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { Enabled: true, AttributeName: attribute } }));

/**
 * An existing table made another way (by hand, another tool): what it lacks and the library needs is turned on
 * (a stream, which `tail`, the change feed and Lambda read; TTL for sentinels and checkpoints), what cannot be
 * changed in place is reported.
 */
async function completeExisting(context: CommandContext, definition: CreateTableCommandInput, ttl: string | undefined) {
  const table = definition.TableName as string;
  const [described, currentTtl] = await Promise.all([
    context.client.send(new DescribeTableCommand({ TableName: table })),
    ttl === undefined ? undefined : context.client.send(new DescribeTimeToLiveCommand({ TableName: table })),
  ]);
  const fit = tableFit(definition, described.Table ?? {}, ttl, currentTtl?.TimeToLiveDescription);
  const updated: string[] = [];
  if (fit.enableStream !== undefined) {
    await context.client.send(
      new UpdateTableCommand({ TableName: table, StreamSpecification: { StreamEnabled: true, StreamViewType: fit.enableStream } }),
    );
    await waitActive(context, table);
    updated.push(`stream enabled (${fit.enableStream})`);
  }
  if (fit.enableTtl !== undefined) {
    await enableTtl(context, table, fit.enableTtl);
    updated.push(`TTL enabled on ${fit.enableTtl}`);
  }
  return { updated, problems: fit.problems };
}

/**
 * `dynafold tables create`: creates every configured table (subject key tables too) that does not exist yet, and turns on the stream
 * or TTL an existing one lacks (idempotent). Fails when an existing table cannot serve (another key, say).
 */
export async function tablesCreateCommand(context: CommandContext): Promise<number> {
  const results: TableOutcome[] = [];
  for (const { kind, definition, ttl } of definitionsOf(context)) {
    const table = definition.TableName as string;
    try {
      await context.client.send(new CreateTableCommand(definition));
    } catch (error) {
      if ((error as { name?: string }).name !== 'ResourceInUseException') throw error;
      results.push({ table, kind, created: false, ...(await completeExisting(context, definition, ttl)) });
      continue;
    }
    await waitActive(context, table);
    if (ttl !== undefined) await enableTtl(context, table, ttl);
    results.push({ table, kind, created: true, updated: [], problems: [] });
  }
  context.out.data(results, () => {
    for (const { table, kind, created, updated, problems } of results) {
      if (problems.length > 0) context.out.line(`${colours.red('✖')} ${table} (${kind}): ${problems.join('; ')}`);
      else if (updated.length > 0) context.out.line(`updated  ${table} (${kind}): ${updated.join(', ')}`);
      else context.out.line(`${created ? 'created' : 'exists '}  ${table} (${kind})`);
    }
  });
  return results.some((result) => result.problems.length > 0) ? ExitCodes.failed : ExitCodes.ok;
}

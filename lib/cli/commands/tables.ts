import { CreateTableCommand, UpdateTimeToLiveCommand, waitUntilTableExists, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { CheckpointTable } from '../../dynamo';
import { outboxTableDefinition } from '../../projector';
import { eventsTableDefinition, readModelTableDefinition, type ReadModel } from '../../store';
import type { CommandContext } from '../context';
import { ExitCodes } from '../exit-codes';

/** How long a new table may take to become ACTIVE (the SDK's waiter polls it). */
const TABLE_WAIT_SECONDS = 300;

/** Every table the config uses, as the library defines them. */
function definitionsOf(context: CommandContext): Array<{ kind: string; definition: CreateTableCommandInput; ttl?: string }> {
  const { model } = context;
  const projections = Object.keys(model.projections ?? {}).map((name) => context.projection(name));
  const streams = [...Object.values(model.streams ?? {}), ...projections.flatMap((p) => p.streams)];
  const eventTables = new Set(streams.map((stream) => stream.table));
  // Sentinels expire on the attribute their streams name (a table has one TTL attribute).
  const sentinelTtl = (table: string) => streams.find((stream) => stream.table === table && stream.sentinelTtl !== undefined)?.sentinelTtl?.attribute;
  const models = new Map<string, ReadModel[]>();
  for (const projection of projections) {
    const { readModel } = projection;
    const list = models.get(readModel.table) ?? [];
    if (!list.includes(readModel)) list.push(readModel);
    models.set(readModel.table, list);
  }
  return [
    ...[...eventTables].map((table) => ({ kind: 'events', definition: eventsTableDefinition(table), ttl: sentinelTtl(table) })),
    ...[...models].map(([table, readModels]) => ({ kind: 'read models', definition: readModelTableDefinition(table, readModels) })),
    ...(model.outboxTables ?? []).map((table) => ({ kind: 'outbox', definition: outboxTableDefinition(table) })),
    ...[...new Set(Object.values(model.feeds ?? {}).map((feed) => feed.checkpointTable))].map((table) => ({
      kind: 'checkpoints',
      definition: CheckpointTable.definition(table),
      ttl: CheckpointTable.ttlAttribute,
    })),
  ];
}

/** `dynafold tables create`: creates every configured table that does not exist yet (idempotent). */
export async function tablesCreateCommand(context: CommandContext): Promise<number> {
  const results: Array<{ table: string; kind: string; created: boolean }> = [];
  for (const { kind, definition, ttl } of definitionsOf(context)) {
    const table = definition.TableName as string;
    let created = true;
    try {
      await context.client.send(new CreateTableCommand(definition));
    } catch (error) {
      if ((error as { name?: string }).name !== 'ResourceInUseException') throw error;
      created = false;
    }
    if (created) {
      await waitUntilTableExists({ client: context.client, maxWaitTime: TABLE_WAIT_SECONDS }, { TableName: table });
      if (ttl !== undefined)
        await context.client.send(new UpdateTimeToLiveCommand({ TableName: table, TimeToLiveSpecification: { Enabled: true, AttributeName: ttl } }));
    }
    results.push({ table, kind, created });
  }
  context.out.data(results, () => {
    for (const result of results) context.out.line(`${result.created ? 'created' : 'exists '}  ${result.table} (${result.kind})`);
  });
  return ExitCodes.ok;
}

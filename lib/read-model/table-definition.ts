import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../errors';
import type { ReadModel } from './read-model';

/**
 * The CreateTable input of a table holding these read models: their primary key and every index they
 * declare (indexes of the same name must agree on their key attributes). All key attributes are strings.
 *
 * @example
 * ```ts
 * await client.send(new CreateTableCommand(readModelTableDefinition('views', [OrderSummaries])))
 * ```
 */
export function readModelTableDefinition(tableName: string, models: ReadonlyArray<ReadModel>): CreateTableCommandInput {
  const first = models[0];
  if (first === undefined) throw new ConfigurationError('readModelTableDefinition needs at least one read model.');
  for (const model of models) {
    if (model.key.pk.field !== first.key.pk.field || model.key.sk?.field !== first.key.sk?.field) {
      throw new ConfigurationError(
        `Read models ${first.name} and ${model.name} can't share a table: their key attributes differ ` +
          `(${[first.key.pk.field, first.key.sk?.field].filter(Boolean).join(', ')} vs ${[model.key.pk.field, model.key.sk?.field].filter(Boolean).join(', ')}).`,
      );
    }
  }
  const attributes = new Set<string>();
  const keySchema = (pk: string, sk: string | undefined) => {
    attributes.add(pk);
    if (sk !== undefined) attributes.add(sk);
    return [{ AttributeName: pk, KeyType: 'HASH' as const }, ...(sk === undefined ? [] : [{ AttributeName: sk, KeyType: 'RANGE' as const }])];
  };
  const indexes = new Map<string, { pk: string; sk: string | undefined }>();
  for (const model of models) {
    for (const index of Object.values(model.indexes)) {
      const known = indexes.get(index.name);
      const wanted = { pk: index.pk.field, sk: index.sk?.field };
      if (known !== undefined && (known.pk !== wanted.pk || known.sk !== wanted.sk)) {
        throw new ConfigurationError(`Index ${index.name} is declared with different key attributes by two read models sharing the table.`);
      }
      indexes.set(index.name, wanted);
    }
  }
  const primary = keySchema(first.key.pk.field, first.key.sk?.field);
  return {
    TableName: tableName,
    KeySchema: primary,
    BillingMode: 'PAY_PER_REQUEST',
    ...(indexes.size === 0
      ? {}
      : {
          GlobalSecondaryIndexes: [...indexes].map(([name, key]) => ({
            IndexName: name,
            KeySchema: keySchema(key.pk, key.sk),
            Projection: { ProjectionType: 'ALL' as const },
          })),
        }),
    AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
  };
}

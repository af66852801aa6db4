// #region tables
import {
  CreateTableCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  eventsTableDefinition,
  readModelTableDefinition,
} from 'dynafold';
import { OrderSummaries } from './model';

export async function createTables(
  client: DynamoDBClient,
): Promise<void> {
  await client.send(
    new CreateTableCommand(eventsTableDefinition('events')),
  );
  await client.send(
    new CreateTableCommand(
      readModelTableDefinition('views', [OrderSummaries]),
    ),
  );
}
// #endregion tables

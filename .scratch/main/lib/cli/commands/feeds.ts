import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { ConfigurationError } from '../../errors';
import type { CommandContext } from '../context';

/** The stream ARN of a table (its latest stream). */
export async function streamArnOf(context: CommandContext, table: string): Promise<string> {
  const described = await context.client.send(new DescribeTableCommand({ TableName: table }));
  const arn = described.Table?.LatestStreamArn;
  if (arn === undefined || described.Table?.StreamSpecification?.StreamEnabled !== true) {
    throw new ConfigurationError(
      `Table ${table} has no stream enabled: create it with eventsTableDefinition (or enable a NEW_AND_OLD_IMAGES stream).`,
    );
  }
  return arn;
}

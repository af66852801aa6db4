import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '../../errors';
import { startDynamoLocal } from '../../local';
import { ExitCodes } from '../exit-codes';
import { onInterrupt } from '../interrupt';
import { Output, colours } from '../output';

const STARTER = `import { EventStream, Projection, ReadModel } from 'dynafold'
import { defineConfig } from 'dynafold/cli'
import { z } from 'zod'

// The DynamoDB settings, and what the dynafold command works on. --endpoint, --region and --profile
// override \`dynamodb\`; \`npx dynafold local\` prints an endpoint to use.
export default defineConfig({
  dynamodb: { region: process.env.AWS_REGION ?? 'us-east-1' },
  setup: ({ client }) => {
    const orders = new EventStream({
      client,
      table: 'events',
      name: 'Order',
      streamId: ['orderId'],
      events: { OrderPlaced: z.object({ customer: z.string() }), OrderShipped: z.object({}) },
    })
    const summaries = new ReadModel({
      client,
      table: 'views',
      name: 'OrderSummary',
      schema: z.object({ orderId: z.string(), customer: z.string(), shipped: z.boolean(), version: z.number() }),
      key: { pk: { field: 'pk', composite: ['orderId'] }, sk: { field: 'sk', composite: [] } },
    })
    const orderSummaries = new Projection({
      stream: orders,
      readModel: summaries,
      key: (id) => ({ orderId: id.orderId }),
      initial: (id) => ({ orderId: id.orderId, customer: '', shipped: false, version: 0 }),
      evolve: (row, event) => (event.type === 'OrderPlaced' ? { ...row, customer: event.data.customer } : { ...row, shipped: true }),
      checkpoint: 'version',
    })
    return {
      streams: { orders },
      projections: { orderSummaries },
      feeds: { summaries: { table: 'events', consumer: 'summaries', checkpointTable: 'checkpoints' } },
    }
  },
})
`;

/** `dynafold init`: writes a starter dynafold.config.ts. */
export function initCommand(options: { force?: boolean; json?: boolean }, cwd = process.cwd()): number {
  const path = join(cwd, 'dynafold.config.ts');
  if (existsSync(path) && options.force !== true) throw new ConfigurationError(`${path} exists: pass --force to overwrite it.`);
  writeFileSync(path, STARTER);
  new Output(options.json === true).data({ written: path }, () => {
    process.stdout.write(
      `${colours.green('✔')} wrote ${path}\n  next: npx dynafold local, then npx dynafold tables create --endpoint <its endpoint>\n`,
    );
  });
  return ExitCodes.ok;
}

/** DynamoDB Local's usual port, so a config can name a stable endpoint. */
const LOCAL_PORT = 8000;

/** `dynafold local`: DynamoDB Local with one shared database until Ctrl-C. */
export async function localCommand(options: { port?: number; json?: boolean }): Promise<number> {
  // Listening before anything is printed: an interrupt that follows the endpoint line is always handled.
  const interrupted = new Promise<void>((resolve) => onInterrupt(resolve));
  const local = await startDynamoLocal({ sharedDb: true, port: options.port ?? LOCAL_PORT });
  new Output(options.json === true).data({ endpoint: local.endpoint }, () => {
    process.stdout.write(`DynamoDB Local at ${colours.bold(local.endpoint)} (one shared database, any credentials)\n`);
    process.stdout.write(`  npx dynafold tables create --endpoint ${local.endpoint}\nCtrl-C stops it.\n`);
  });
  // DynamoDB Local runs detached and holds nothing open here: a timer keeps this process alive until Ctrl-C.
  const keepAlive = setInterval(() => undefined, 2 ** 30);
  await interrupted;
  clearInterval(keepAlive);
  await local.stop();
  return ExitCodes.ok;
}

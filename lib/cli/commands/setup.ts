import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '../../errors';
import { startDynamoLocal } from '../../local';
import { ExitCodes } from '../exit-codes';
import { onInterrupt } from '../interrupt';
import { appModules } from '../app-modules';
import { Output, colours } from '../output';
import { starterConfig } from '../starter-config';

/** DynamoDB Local's usual port, so a config can name a stable endpoint. */
const LOCAL_PORT = 8000;

/**
 * `dynafold init`: writes a dynafold.config.ts that imports the app's modules (those under `src/` that
 * export streams, read models and projections) and builds each with the client the command hands out.
 */
export function initCommand(options: { force?: boolean; json?: boolean }, cwd = process.cwd()): number {
  const path = join(cwd, 'dynafold.config.ts');
  if (existsSync(path) && options.force !== true) throw new ConfigurationError(`${path} exists: pass --force to overwrite it.`);
  const modules = appModules(cwd);
  writeFileSync(path, starterConfig(modules));
  const count = (kind: string, noun: string) => {
    const n = modules.flatMap((module) => module.definitions).filter((definition) => definition.kind === kind).length;
    return `${n} ${noun}${n === 1 ? '' : 's'}`;
  };
  const found = modules.length === 0 ? 'no module of the app exports a stream yet' : `from ${modules.map((module) => module.path).join(', ')}`;
  new Output(options.json === true).data({ written: path, modules: modules.map((module) => module.path) }, () => {
    process.stdout.write(
      `${colours.green('✔')} wrote ${path} (${found}: ${count('stream', 'stream')}, ${count('projection', 'projection')})\n` +
        `  next: npx dynafold local, then npx dynafold tables create --endpoint http://127.0.0.1:${LOCAL_PORT}\n`,
    );
  });
  return ExitCodes.ok;
}

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

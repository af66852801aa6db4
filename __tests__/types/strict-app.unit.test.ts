/**
 * An app compiled with `strict`, `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`,
 * `verbatimModuleSyntax` and `skipLibCheck: false` uses the API as the README shows it: optional options
 * take `undefined`, a decoder takes `record.dynamodb?.NewImage`. strict-app.ts is that app.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

test('a strict app compiles against the API', async () => {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = execFile(process.execPath, [tsc, '-p', join(__dirname, 'tsconfig.json'), '--noEmit'], { cwd: root }, (_error, stdout, stderr) =>
      resolve({ code: child.exitCode, output: `${stdout}${stderr}` }),
    );
  });
  expect(result.output).toBe('');
  expect(result.code).toBe(0);
}, 180_000);

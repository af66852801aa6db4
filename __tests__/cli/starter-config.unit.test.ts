/**
 * `dynafold init` on the app the docs build writes, word for word, the config the pages show (and which
 * compiles with the snippets): at Getting started, over src/orders.ts; at the personal data guide, over
 * the customers too. The walk checks the same on the packed package; this keeps it in `npm test`.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appModules, definitionsIn } from '../../lib/cli/app-modules';
import { starterConfig } from '../../lib/cli/starter-config';

const snippets = join(__dirname, '..', '..', 'examples', 'snippets');

/** The config init writes for an app whose src holds these files of the docs' app. */
function initOver(files: ReadonlyArray<string>): string {
  const app = mkdtempSync(join(tmpdir(), 'dynafold-init-'));
  for (const file of files) cpSync(join(snippets, 'app', 'src', file), join(app, 'src', file));
  try {
    return starterConfig(appModules(app));
  } finally {
    rmSync(app, { recursive: true });
  }
}

test("init over Getting started's app writes the config the page shows", () => {
  expect(initOver(['orders.ts', 'try-it.ts', 'handler.ts', 'orders.test.ts'])).toBe(
    readFileSync(join(snippets, 'app-stages', 'getting-started', 'dynafold.config.ts'), 'utf8'),
  );
});

test('init over the app with its customers writes the config the personal data guide shows', () => {
  expect(initOver(['orders.ts', 'customers.ts', 'erasure.ts', 'kms-keys.ts', 'telemetry.ts'])).toBe(
    readFileSync(join(snippets, 'app-stages', 'personal-data', 'dynafold.config.ts'), 'utf8'),
  );
});

test('an export it can not build is left out with a line that says so; an app with none gets an empty setup', () => {
  const definitions = definitionsIn(
    [
      "import { EventStream } from 'dynafold';",
      'export const built = new EventStream(options);',
      'export function odd(client: DynamoDBClient, clock: Clock) {',
      '  return new EventStream({ client, clock });',
      '}',
    ].join('\n'),
  );
  expect(definitions).toEqual([
    { name: 'built', kind: 'stream', parameters: undefined },
    {
      name: 'odd',
      kind: 'stream',
      parameters: [
        { name: 'client', type: 'DynamoDBClient' },
        { name: 'clock', type: 'Clock' },
      ],
    },
  ]);
  const config = starterConfig([{ path: 'src/streams.ts', definitions }]);
  expect(config).toContain('const built = streams.built;');
  expect(config).toContain('// streams.odd(client, clock): its arguments could not be told; build it here.');
  expect(starterConfig([])).toContain('setup: () => ({ streams: {}, projections: [] }),');
});

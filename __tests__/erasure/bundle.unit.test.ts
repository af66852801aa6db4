import { join, relative } from 'node:path';
import { build } from 'esbuild';

const root = join(__dirname, '../..');

/** The source files of lib/ a handler's bundle holds code of, as a Lambda deployment bundles it (esbuild, minified, ESM). */
async function bundledSources(handler: string): Promise<string[]> {
  const result = await build({
    entryPoints: [join(root, 'bench/bundle', handler)],
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    mainFields: ['module', 'main'],
    write: false,
    outdir: 'out',
    metafile: true,
    logLevel: 'silent',
    tsconfig: join(root, 'tsconfig.json'),
  });
  return Object.values(result.metafile.outputs)
    .flatMap((output) => Object.entries(output.inputs))
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => relative(root, join(root, path)))
    .filter((path) => path.startsWith('lib/'));
}

/** Personal data's code: key management, the declaration's checks, sealing and opening fields (wherever it lives). */
const personalDataCode = (path: string) => /^lib\/(store\/)?erasure\//.test(path);

test("a handler whose streams declare no personal data bundles none of personal data's code", async () => {
  const sources = await bundledSources('dynafold-handler.ts');
  expect(sources).toEqual(expect.arrayContaining(['lib/store/event-stream.ts']));
  expect(sources.filter(personalDataCode)).toEqual([]);
});

test('a handler over a stream with personal data bundles its key store, declaration checks, sealing and opening', async () => {
  const sources = await bundledSources('dynafold-personal-handler.ts');
  expect(sources).toEqual(
    expect.arrayContaining([
      'lib/erasure/subject-keys.ts',
      'lib/erasure/key-cache.ts',
      'lib/erasure/key-table.ts',
      'lib/erasure/declaration.ts',
      'lib/erasure/seal-events.ts',
      'lib/erasure/open-event.ts',
    ]),
  );
});

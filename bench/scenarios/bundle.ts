import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Format } from 'esbuild';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { median } from '../support/stats';

const HANDLERS = { dynafold: 'dynafold-handler.ts', personal: 'dynafold-personal-handler.ts', hand: 'hand-handler.ts' } as const;
type Handler = keyof typeof HANDLERS;
const FORMATS = ['esm', 'cjs'] as const satisfies ReadonlyArray<Format>;
type BundleFormat = (typeof FORMATS)[number];
/** The goal: what a dynafold handler's bundle holds beyond the same handler written by hand, minified. */
const TARGET_KB = 60;

/** Bundles a handler the way a Lambda deployment does (esbuild, minified, the SDK and zod inside); resolves its path. */
async function bundle(handler: Handler, format: BundleFormat, out: string): Promise<string> {
  const outfile = join(out, `${handler}.${format === 'esm' ? 'mjs' : 'cjs'}`);
  await build({
    entryPoints: [join(__dirname, '..', 'bundle', HANDLERS[handler])],
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node22',
    format,
    // The AWS SDK's "main" is its CommonJS build, whose requires of builtins fail in an ES module: an ESM
    // deployment takes its "module" build first (as the CDK's NodejsFunction does for ESM).
    ...(format === 'esm' ? { mainFields: ['module', 'main'] } : {}),
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

/** Milliseconds to load a bundle in a fresh Node process: the part of a cold start the code adds. */
function initMs(file: string): number {
  const load = file.endsWith('.mjs') ? `await import(${JSON.stringify(pathToFileURL(file).href)})` : `require(${JSON.stringify(file)})`;
  const script = `const t = performance.now(); ${load}; process.stdout.write(String(performance.now() - t));`;
  const args = file.endsWith('.mjs') ? ['--input-type=module', '-e', script] : ['-e', script];
  return Number(execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
}

/** The handlers whose load times are measured. */
type Timed = Exclude<Handler, 'personal'>;

/**
 * The rows of one format: sizes against the hand-written handler, what dynafold adds against the goal,
 * what personal data adds (its code is bundled only by an app that declares some), load times.
 */
function formatRows(format: BundleFormat, kb: Record<Handler, number>, times: Record<Timed, number[]>): Row[] {
  const scenario = `8 bundle ${format}`;
  const extraKb = kb.dynafold - kb.hand;
  const against = 'hand-written, same SDK + zod';
  return [
    { scenario, measure: 'minified handler KB', dynafold: kb.dynafold, baseline: kb.hand, against, ratio: kb.dynafold / kb.hand },
    { scenario, measure: 'KB dynafold adds', dynafold: extraKb, target: `≤ ${TARGET_KB} KB`, pass: extraKb <= TARGET_KB },
    {
      scenario,
      measure: 'minified handler KB, with personal data',
      dynafold: kb.personal,
      baseline: kb.dynafold,
      against: 'the same without personal data',
      ratio: kb.personal / kb.dynafold,
    },
    {
      scenario,
      measure: 'load ms, fresh process',
      dynafold: median(times.dynafold),
      baseline: median(times.hand),
      against,
      ratio: median(times.dynafold) / median(times.hand),
    },
  ];
}

/**
 * The Lambda bundle: an order summary handler built with dynafold against the same handler written by
 * hand with the same SDK and zod, both bundled and minified by esbuild as ESM and as CommonJS; their sizes,
 * the size of the dynafold handler over a stream with personal data, and the time a fresh Node process
 * takes to load each of the first two (median of alternating runs).
 */
export const bundleSize: Scenario = {
  name: 'bundle',
  title: 'Lambda bundle size and load time, ESM and CommonJS',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const out = mkdtempSync(join(tmpdir(), 'dynafold-bundle-'));
    const runs = context.quick ? 5 : 15;
    const rows: Row[] = [];
    const details: Record<string, unknown> = {};
    for (const format of FORMATS) {
      const files = {
        dynafold: await bundle('dynafold', format, out),
        personal: await bundle('personal', format, out),
        hand: await bundle('hand', format, out),
      };
      const kb = {
        dynafold: statSync(files.dynafold).size / 1024,
        personal: statSync(files.personal).size / 1024,
        hand: statSync(files.hand).size / 1024,
      };
      const times: Record<Timed, number[]> = { dynafold: [], hand: [] };
      for (let run = 0; run < runs; run++) {
        for (const handler of ['dynafold', 'hand'] as const) times[handler].push(initMs(files[handler]));
      }
      rows.push(...formatRows(format, kb, times));
      details[format] = { kb, times };
    }
    return {
      rows,
      notes: [
        `esbuild, minified, platform node, target node22, the SDK and zod bundled, from the sources; load time is import() (ESM) or require() (CommonJS) in a fresh node, median of ${runs} alternating runs.`,
      ],
      details,
    };
  },
};

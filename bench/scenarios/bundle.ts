import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Row, Scenario, ScenarioContext, ScenarioResult } from '../support/report';
import { median } from '../support/stats';

const HANDLERS = { dynafold: 'dynafold-handler.ts', hand: 'hand-handler.ts' } as const;
type Handler = keyof typeof HANDLERS;

/** Bundles a handler the way a Lambda deployment does (esbuild, minified, the SDK inside); resolves its path. */
async function bundle(handler: Handler, out: string): Promise<string> {
  const outfile = join(out, `${handler}.js`);
  await build({
    entryPoints: [join(__dirname, '..', 'bundle', HANDLERS[handler])],
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

/** Milliseconds to load a bundle in a fresh Node process: the part of a cold start the code adds. */
function initMs(file: string): number {
  const script = `const t = performance.now(); require(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
}

/**
 * The Lambda bundle: an order summary handler built with dynafold against the same handler written by
 * hand with the same SDK and zod, both bundled and minified by esbuild; their sizes, and the time a
 * fresh Node process takes to load each (median of alternating runs).
 */
export const bundleSize: Scenario = {
  name: 'bundle',
  title: 'Lambda bundle size and load time',
  async run(context: ScenarioContext): Promise<ScenarioResult> {
    const out = mkdtempSync(join(tmpdir(), 'dynafold-bundle-'));
    const files = { dynafold: await bundle('dynafold', out), hand: await bundle('hand', out) };
    const kb = (handler: Handler) => statSync(files[handler]).size / 1024;
    const runs = context.quick ? 5 : 15;
    const times: Record<Handler, number[]> = { dynafold: [], hand: [] };
    for (let run = 0; run < runs; run++) {
      for (const handler of ['dynafold', 'hand'] as const) times[handler].push(initMs(files[handler]));
    }
    const extraKb = kb('dynafold') - kb('hand');
    const rows: Row[] = [
      {
        scenario: '8 bundle',
        measure: 'minified handler KB',
        dynafold: kb('dynafold'),
        baseline: kb('hand'),
        against: 'hand-written, same SDK + zod',
        ratio: kb('dynafold') / kb('hand'),
      },
      {
        scenario: '8 bundle',
        measure: 'KB dynafold adds',
        dynafold: extraKb,
        // The whole library is about 70 KB minified: a handler pulls in the store and the projector.
        target: '≤ 75 KB',
        pass: extraKb <= 75,
      },
      {
        scenario: '8 bundle',
        measure: 'load ms, fresh process',
        dynafold: median(times.dynafold),
        baseline: median(times.hand),
        against: 'hand-written, same SDK + zod',
        ratio: median(times.dynafold) / median(times.hand),
      },
    ];
    return {
      rows,
      notes: [
        `esbuild, minified, platform node, target node20, the SDK bundled; load time is require() in a fresh node, median of ${runs} alternating runs.`,
      ],
      details: { kb: { dynafold: kb('dynafold'), hand: kb('hand') }, times },
    };
  },
};

/**
 * The benchmarks: `npm run bench [-- --quick] [-- --only <scenario>[,<scenario>]]`.
 * Runs every scenario on an embedded DynamoDB Local, prints one table of figures and ratios (each measured
 * in the same run as its baseline) and writes bench/results/latest.json.
 */
import { parseArgs } from 'node:util';
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { endpointOf, startLocal } from './support/local';
import { renderTable, type Row, type Scenario } from './support/report';
import { costVsLength } from './scenarios/cost-vs-length';
import { outOfOrder } from './scenarios/out-of-order';
import { floor } from './scenarios/floor';
import { append } from './scenarios/append';
import { latency } from './scenarios/latency';
import { drain } from './scenarios/drain';
import { backfill } from './scenarios/backfill';
import { bundleSize } from './scenarios/bundle';
import { peers } from './scenarios/peers';
import { shards } from './scenarios/shards';
import { hotRow } from './scenarios/hot-row';
import { upcast } from './scenarios/upcast';
import { telemetry } from './scenarios/telemetry';
import { erasure } from './scenarios/erasure';
import { reactions } from './scenarios/reactions';

const scenarios: Scenario[] = [
  costVsLength,
  outOfOrder,
  floor,
  append,
  latency,
  drain,
  backfill,
  bundleSize,
  peers,
  shards,
  hotRow,
  upcast,
  telemetry,
  erasure,
  reactions,
];

/** The command line, parsed by node:util's parseArgs: `--quick`, `--only a,b`. */
function readArgs(argv: ReadonlyArray<string>): { quick: boolean; only: Set<string> | undefined } {
  const { values } = parseArgs({ args: [...argv], options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } }, strict: true });
  const only = values.only === undefined ? undefined : new Set(values.only.split(','));
  for (const name of only ?? []) {
    if (!scenarios.some((s) => s.name === name)) throw new Error(`Unknown scenario ${name}: one of ${scenarios.map((s) => s.name).join(', ')}`);
  }
  return { quick: values.quick, only };
}

function commit(): string | undefined {
  try {
    return execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return undefined;
  }
}

/**
 * Whether `dynafold` resolves to the package's build (`npm run bench:built`: tsconfig.bench-dist.json maps it
 * to dist/) rather than to lib/ compiled module by module by tsx, whose every import between modules is a
 * getter call the build does not make. The peers always run their published builds.
 */
const BUILT = process.env['TSX_TSCONFIG_PATH']?.endsWith('tsconfig.bench-dist.json') === true;

async function main(): Promise<void> {
  const { quick, only } = readArgs(process.argv.slice(2));
  const started = performance.now();
  const log = (message: string) => process.stderr.write(`${message}\n`);
  log(
    `dynafold bench${quick ? ' --quick' : ''}: a fresh DynamoDB Local for each scenario; dynafold from ${BUILT ? 'dist/ (bench:built)' : 'lib/ through tsx'}`,
  );
  const rows: Row[] = [];
  const report: Record<string, unknown>[] = [];
  for (const scenario of scenarios) {
    if (only !== undefined && !only.has(scenario.name)) continue;
    log(`▶ ${scenario.title}`);
    // DynamoDB Local slows down as tables and stream records pile up (the backfill's fill took 18 s alone and
    // 240–340 s after the other scenarios): each scenario starts from an empty one, so figures compare.
    const local = await startLocal();
    const t = performance.now();
    try {
      const result = await scenario.run({ endpoint: endpointOf(local), quick, log });
      const seconds = (performance.now() - t) / 1000;
      log(`  done in ${seconds.toFixed(1)} s`);
      rows.push(...result.rows);
      report.push({ name: scenario.name, title: scenario.title, seconds, rows: result.rows, notes: result.notes, details: result.details });
    } finally {
      await local.stop();
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const table = renderTable(rows);
  const notes = report.flatMap((r) => (r['notes'] as string[]).map((n) => `  ${String(r['name'])}: ${n}`));
  process.stdout.write(
    `\n${table}\n\nNotes:\n${notes.join('\n')}\n\n${quick ? 'quick' : 'full'} run: ${seconds.toFixed(1)} s; targets met ${rows.filter((r) => r.pass === true).length}, missed ${rows.filter((r) => r.pass === false).length}\n`,
  );
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'latest.json'),
    `${JSON.stringify({ date: new Date().toISOString(), commit: commit(), quick, built: BUILT, seconds, node: process.version, scenarios: report }, null, 2)}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

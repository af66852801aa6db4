import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Metrics } from '../lib/telemetry/names';

// Names may wrap after their dots in the guide's tables (`<code>a.<wbr>b</code>`): read as code spans.
const guide = readFileSync(join(__dirname, '..', 'docs', 'guides', 'observability.md'), 'utf8')
  .replace(/<wbr>/g, '')
  .replace(/<\/?code>/g, '`');

/** The guide's metrics table (`| name | kind of/in unit | attributes | what |`), as name → its row. */
function documentedMetrics(): Map<string, { kind: string; unit: string; attributes: string[] }> {
  const rows = guide.matchAll(/^\| `(dynafold\.[\w.]+)` \| (\w+) (?:of|in) `([^`]+)` \| (.*?) \| .* \|$/gm);
  return new Map(
    [...rows].map(([, name, kind, unit, attributes]) => [
      name as string,
      {
        kind: kind as string,
        unit: unit as string,
        attributes: [...(attributes as string).matchAll(/`([\w.]+)`/g)].map((match) => match[1] as string),
      },
    ]),
  );
}

test('the observability guide lists every metric with its kind, unit and attributes, and no other', () => {
  const documented = documentedMetrics();
  const recorded = Object.values(Metrics).map(({ name, kind, unit, attributes }) => [name, { kind, unit, attributes: [...attributes] }] as const);
  expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(recorded));
});

test('the guide names every span dynafold starts', () => {
  const spans = ['append Order', 'load Order', 'execute Order', 'process <events table>', 'writeRow <projection>', 'rebuild <projection>'];
  for (const span of [...spans, 'replay <projection>', 'backfill <projection>', 'send <projection>', 'react <reaction>', 'fire <reaction>'])
    expect(guide).toContain(`| \`${span}\` |`);
});

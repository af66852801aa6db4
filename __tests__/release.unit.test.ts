/** The package's version follows its CHANGELOG (scripts/release.ts): the repository's own, and the release steps. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nextVersion, opened, released, versionProblem } from '../scripts/release';

const root = join(__dirname, '..');

test("package.json's version is what the CHANGELOG says is coming (-dev) or its newest release", () => {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    version: string;
    packages: Record<string, { version: string }>;
  };
  expect(versionProblem(version, readFileSync(join(root, 'CHANGELOG.md'), 'utf8'))).toBeUndefined();
  expect([lock.version, lock.packages['']?.version]).toEqual([version, version]);
});

const head = '# Changelog\n\nIntro.\n\n';
const coming = `${head}## [Unreleased]\n\nComing as 0.4.0.\n\n### Summary\n\n- Things.\n\n## [0.2.0]\n\n- Old things.\n`;

test('a -dev version agrees with an Unreleased section coming as that version, newer than every release', () => {
  expect(versionProblem('0.4.0-dev', coming)).toBeUndefined();
  expect(versionProblem('0.5.0-dev', coming)).toMatch(/must open with "Coming as 0\.5\.0\."/);
  expect(versionProblem('0.2.0', coming)).toMatch(/lists unreleased changes/);
  expect(versionProblem('0.4.0', coming)).toMatch(/not the CHANGELOG's newest release \(0\.2\.0\)/);
  expect(versionProblem('0.2.0-dev', coming.replace('Coming as 0.4.0', 'Coming as 0.2.0'))).toMatch(/released 0\.2\.0 already/);
  expect(() => versionProblem('next', coming)).toThrow(/not a version/);
});

test('a release dates the section and leaves an empty Unreleased above it; --next opens the next one', () => {
  const release = released(coming, '0.4.0', '2027-01-15');
  expect(release).toBe(`${head}## [Unreleased]\n\n## [0.4.0] - 2027-01-15\n\n### Summary\n\n- Things.\n\n## [0.2.0]\n\n- Old things.\n`);
  expect(versionProblem('0.4.0', release)).toBeUndefined();
  expect(() => released(coming, '0.5.0', '2027-01-15')).toThrow(/not coming as 0\.5\.0/);
  expect(() => released(`${head}## [Unreleased]\n\nComing as 0.4.0.\n\n## [0.2.0]\n`, '0.4.0', '2027-01-15')).toThrow(/lists no change/);

  const next = nextVersion('0.4.0', 'minor');
  expect([next, nextVersion('0.4.0', 'patch'), nextVersion('0.4.0', 'major')]).toEqual(['0.5.0', '0.4.1', '1.0.0']);
  const reopened = opened(release, next);
  expect(versionProblem('0.5.0-dev', reopened)).toBeUndefined();
  expect(() => opened(coming, next)).toThrow(/not empty/);
});

/**
 * The package's version follows its CHANGELOG. Between releases the CHANGELOG's first section is
 * `## [Unreleased]`, opened by the line `Coming as <version>.`, and package.json says `<version>-dev`: a build
 * of the repository is neither the last release nor the next. A release turns that section into
 * `## [<version>] - <date>` and sets package.json (and package-lock.json) to `<version>`; after publishing,
 * `--next` opens the next section and sets the next `-dev` version.
 *
 *   npm run release                 (the version the CHANGELOG says is coming, dated today)
 *   npm run release -- --next minor (or patch, or major: the next `-dev` version)
 *
 * The CHANGELOG is written by hand, a section per topic with what users must rename or stop using, which
 * a changelog generated from change files (changesets) would not keep; the script only moves headings.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A version the CHANGELOG can name: `major.minor.patch`, with `-dev` between releases. */
const VERSION = /^(\d+)\.(\d+)\.(\d+)(-dev)?$/;
const UNRELEASED = '## [Unreleased]';
const COMING = /^Coming as (\d+\.\d+\.\d+)\.$/m;

/** What the CHANGELOG says of the package's version: the one coming (an Unreleased section), and the releases. */
export interface ChangelogVersions {
  /** The version the Unreleased section says it is coming as; `undefined` without one (just released). */
  readonly coming: string | undefined;
  /** Whether the Unreleased section lists changes. */
  readonly unreleasedChanges: boolean;
  /** The released versions, newest first. */
  readonly released: ReadonlyArray<string>;
}

export function changelogVersions(changelog: string): ChangelogVersions {
  const sections = changelog.split(/^(?=## \[)/m).slice(1);
  const unreleased = sections.find((section) => section.startsWith(UNRELEASED));
  const released = sections.flatMap((section) => /^## \[(\d+\.\d+\.\d+)\]/.exec(section)?.[1] ?? []);
  const body = unreleased?.slice(UNRELEASED.length).replace(COMING, '').trim() ?? '';
  return { coming: unreleased === undefined ? undefined : COMING.exec(unreleased)?.[1], unreleasedChanges: body !== '', released };
}

function parts(version: string): [number, number, number] {
  const match = VERSION.exec(version);
  if (match === null) throw new Error(`release: ${version} is not a version the CHANGELOG can name (major.minor.patch, -dev between releases)`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function newer(a: string, b: string): boolean {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) > (y[i] as number);
  return false;
}

/**
 * Why package.json's `version` disagrees with the CHANGELOG, or `undefined` when it agrees: `<v>-dev` while
 * the Unreleased section is coming as `<v>`, newer than every release; `<v>` once `<v>` is the newest release
 * and nothing is unreleased.
 */
export function versionProblem(version: string, changelog: string): string | undefined {
  parts(version);
  const { coming, unreleasedChanges, released } = changelogVersions(changelog);
  const newest = released[0];
  if (version.endsWith('-dev')) {
    const next = version.slice(0, -'-dev'.length);
    if (coming !== next) return `package.json says ${version}, so the CHANGELOG's ${UNRELEASED} section must open with "Coming as ${next}."`;
    if (newest !== undefined && !newer(next, newest)) return `package.json says ${version}, but the CHANGELOG released ${newest} already`;
    return undefined;
  }
  if (newest !== version) return `package.json says ${version}, which is not the CHANGELOG's newest release (${newest ?? 'none'})`;
  if (unreleasedChanges)
    return `package.json says ${version}, a release, but the CHANGELOG lists unreleased changes: their version is ${version}-dev's`;
  return undefined;
}

/** The CHANGELOG with its Unreleased section released as `version` on `date` (YYYY-MM-DD), and an empty one above. */
export function released(changelog: string, version: string, date: string): string {
  const { coming, unreleasedChanges } = changelogVersions(changelog);
  if (coming !== version) throw new Error(`release: the CHANGELOG's ${UNRELEASED} section is not coming as ${version}`);
  if (!unreleasedChanges) throw new Error(`release: the CHANGELOG's ${UNRELEASED} section lists no change`);
  return changelog.replace(`${UNRELEASED}\n\nComing as ${version}.\n`, `${UNRELEASED}\n\n## [${version}] - ${date}\n`);
}

/** The next version after `version` (a release), by `step`. */
export function nextVersion(version: string, step: 'major' | 'minor' | 'patch'): string {
  const [major, minor, patch] = parts(version);
  if (step === 'major') return `${major + 1}.0.0`;
  return step === 'minor' ? `${major}.${minor + 1}.0` : `${major}.${minor}.${patch + 1}`;
}

/** The CHANGELOG with an Unreleased section coming as `version` (after a release, which left it empty). */
export function opened(changelog: string, version: string): string {
  if (!changelog.includes(`${UNRELEASED}\n\n## [`)) throw new Error(`release: the CHANGELOG's ${UNRELEASED} section is not empty`);
  return changelog.replace(`${UNRELEASED}\n\n`, `${UNRELEASED}\n\nComing as ${version}.\n\n`);
}

function setVersion(root: string, version: string): void {
  const manifest = join(root, 'package.json');
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/^( {2}"version": )"[^"]+"/m, `$1"${version}"`));
  // The lock file names the package's version twice: at its top and for the root package.
  const lock = join(root, 'package-lock.json');
  writeFileSync(
    lock,
    readFileSync(lock, 'utf8')
      .replace(/^( {2}"version": )"[^"]+"/m, `$1"${version}"`)
      .replace(/^( {6}"version": )"[^"]+"/m, `$1"${version}"`),
  );
}

function main(args: ReadonlyArray<string>): void {
  const root = join(__dirname, '..');
  const changelogFile = join(root, 'CHANGELOG.md');
  const changelog = readFileSync(changelogFile, 'utf8');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const problem = versionProblem(version, changelog);
  if (problem !== undefined) throw new Error(`release: ${problem}`);
  const step = args[0] === '--next' ? args[1] : undefined;
  if (args[0] === '--next') {
    if (step !== 'major' && step !== 'minor' && step !== 'patch') throw new Error('release: --next takes major, minor or patch');
    if (version.endsWith('-dev')) throw new Error(`release: ${version} is not released yet`);
    const next = nextVersion(version, step);
    writeFileSync(changelogFile, opened(changelog, next));
    setVersion(root, `${next}-dev`);
    console.log(`release: ${next}-dev, the CHANGELOG's Unreleased section coming as ${next}`);
    return;
  }
  if (!version.endsWith('-dev')) throw new Error(`release: ${version} is released; --next opens the next version`);
  const target = version.slice(0, -'-dev'.length);
  writeFileSync(changelogFile, released(changelog, target, new Date().toISOString().slice(0, 10)));
  setVersion(root, target);
  console.log(`release: ${target}; commit, tag v${target}, npm publish, then npm run release -- --next minor`);
}

if (require.main === module) main(process.argv.slice(2));

/**
 * Every link of the built site, and of the Markdown pages GitHub renders (README.md, CHANGELOG.md), goes
 * somewhere: a page of the site and, with `#anchor`, an element of it with that id; a file of the
 * repository (`https://github.com/dynafold/dynafold/blob/main/<path>` or a relative path in the
 * Markdown) and, with `#anchor`, a heading GitHub gives that id or a line the file has. Links to other
 * sites are counted, not followed (the check runs offline).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** The repository's address on GitHub: links to its files are checked against the working tree. */
const REPOSITORY = /^https:\/\/github\.com\/dynafold\/dynafold\/(blob|tree)\/main\/([^#?]*)(?:#(.*))?$/;

export interface LinkReport {
  /** Links followed (every occurrence, the navigation and sidebar of every page included). */
  readonly links: number;
  /** Distinct targets checked. */
  readonly targets: number;
  /** Links to other sites, not followed. */
  readonly external: number;
  readonly broken: ReadonlyArray<string>;
}

/** Every built page, as its file and the path the site serves it at (`/guides/store`). */
export function sitePages(site: string): Array<{ readonly file: string; readonly path: string }> {
  return readdirSync(site, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.html') && entry.name !== '404.html')
    .map((entry) => {
      const file = join(entry.parentPath, entry.name);
      const path = `/${relative(site, file).replace(/\\/g, '/')}`.replace(/(^|\/)index\.html$/, '$1').replace(/\.html$/, '');
      return { file, path };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const decodeEntities = (text: string) => text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);

/** The ids of a built page's elements. */
function idsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]*)"/g)].map(([, id = '']) => decodeEntities(id)));
}

/** GitHub's id for a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
function githubSlug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors GitHub gives a Markdown file: its headings' slugs, numbered when repeated. */
function markdownAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading = ''] of text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Why a link to a file of the repository goes nowhere, or `undefined` when it goes to the file (and the anchor). */
function repositoryProblem(root: string, path: string, kind: 'blob' | 'tree', anchor: string | undefined): string | undefined {
  const file = join(root, decodeURIComponent(path));
  if (!existsSync(file)) return `no ${path} in the repository`;
  if (kind === 'tree' && !statSync(file).isDirectory()) return `${path} is a file (a /blob/ link)`;
  if (kind === 'blob' && statSync(file).isDirectory()) return `${path} is a folder (a /tree/ link)`;
  if (anchor === undefined || anchor === '' || kind === 'tree') return undefined;
  const text = readFileSync(file, 'utf8');
  const lines = /^L(\d+)(?:-L(\d+))?$/.exec(anchor);
  if (lines !== null) {
    const last = Number(lines[2] ?? lines[1]);
    const count = text.split('\n').length;
    return last <= count ? undefined : `${path} has ${count} lines, not ${last}`;
  }
  if (!file.endsWith('.md')) return `#${anchor} on ${path}, which is not Markdown`;
  return markdownAnchors(text).has(decodeURIComponent(anchor)) ? undefined : `no heading #${anchor} in ${path}`;
}

/** The built page a site path names (as the static server resolves it), or `undefined`. */
function pageFile(site: string, path: string): string | undefined {
  const base = join(site, decodeURIComponent(path));
  return [base, `${base}.html`, join(base, 'index.html')].find((file) => existsSync(file) && statSync(file).isFile());
}

/** Checks every link of the built site. */
export function checkSiteLinks(site: string, root: string): LinkReport {
  const pages = sitePages(site);
  const ids = new Map<string, Set<string>>();
  const idsOfFile = (file: string) => {
    let found = ids.get(file);
    if (found === undefined) {
      found = file.endsWith('.html') ? idsOf(readFileSync(file, 'utf8')) : new Set();
      ids.set(file, found);
    }
    return found;
  };
  const verdicts = new Map<string, string | undefined>();
  const broken: string[] = [];
  let links = 0;
  let external = 0;
  for (const page of pages) {
    const html = readFileSync(page.file, 'utf8');
    for (const [, raw = ''] of html.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
      const href = decodeEntities(raw);
      links++;
      if (/^(mailto|tel|javascript):/.test(href)) continue;
      const url = new URL(href, `http://site${page.path}`);
      const key = url.origin === 'http://site' ? `${url.pathname}${url.hash}` : href;
      if (!verdicts.has(key)) {
        const repository = REPOSITORY.exec(href);
        if (repository !== null) {
          verdicts.set(key, repositoryProblem(root, repository[2] ?? '', repository[1] as 'blob' | 'tree', repository[3]));
        } else if (url.origin !== 'http://site') {
          verdicts.set(key, undefined);
        } else {
          const file = pageFile(site, url.pathname);
          const anchor = decodeURIComponent(url.hash.slice(1));
          if (file === undefined) verdicts.set(key, `no page ${url.pathname}`);
          else if (anchor !== '' && !idsOfFile(file).has(anchor)) verdicts.set(key, `no #${anchor} on ${url.pathname}`);
          else verdicts.set(key, undefined);
        }
      }
      if (url.origin !== 'http://site' && REPOSITORY.exec(href) === null) external++;
      const problem = verdicts.get(key);
      if (problem !== undefined) broken.push(`${page.path}: ${href} (${problem})`);
    }
  }
  return { links, targets: verdicts.size, external, broken: [...new Set(broken)] };
}

/** Checks the links of Markdown files GitHub renders (relative links to files and their headings). */
export function checkMarkdownLinks(root: string, files: ReadonlyArray<string>): LinkReport {
  const broken: string[] = [];
  const targets = new Set<string>();
  let links = 0;
  let external = 0;
  for (const name of files) {
    const text = readFileSync(join(root, name), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, href = ''] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      links++;
      const repository = REPOSITORY.exec(href);
      let problem: string | undefined;
      if (repository !== null) problem = repositoryProblem(root, repository[2] ?? '', repository[1] as 'blob' | 'tree', repository[3]);
      else if (/^[a-z]+:/.test(href)) {
        external++;
        continue;
      } else {
        const [path = '', anchor] = href.split('#');
        const target = path === '' ? name : relative(root, join(dirname(join(root, name)), path));
        const kind = path !== '' && existsSync(join(root, target)) && statSync(join(root, target)).isDirectory() ? 'tree' : 'blob';
        problem = repositoryProblem(root, target, kind, anchor);
      }
      targets.add(href);
      if (problem !== undefined) broken.push(`${name}: ${href} (${problem})`);
    }
  }
  return { links, targets: targets.size, external, broken };
}

/**
 * The built site as a reader sees it. First every link: each page's links and anchors, inside the site
 * and to the repository's files, and those of README.md and CHANGELOG.md (see links.ts). Then every page
 * in headless Chromium, at 1,280 px (a laptop) and at 390 px (a phone): no page scrolls sideways, and at
 * 1,280 px no code block or table does either. Along the way: code blocks are highlighted, the navigation
 * and the sidebar link the pages, and the local search finds a word of the guides.
 *
 * Screenshots go to docs/.screenshots/<width>/ (not committed): the first screen of each page of the
 * generated API reference (`<page>.png`), and every screen of the other pages (`<page>.01.png`, …), to look at.
 * Exits non-zero with everything found wrong.
 *
 *   npm run docs:build && npm run docs:check      (CHROMIUM=<path> if `chromium` is not on PATH)
 *   DOCS_CHECK_PAGES='^/$|/guides/' npm run docs:check   (only the pages whose path matches, links still all)
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Browser, type Page } from './browser';
import { MEASURE_LAYOUT, type Layout } from './layout';
import { checkMarkdownLinks, checkSiteLinks, sitePages, type LinkReport } from './links';
import { serveSite } from './static-server';

const docs = join(__dirname, '..');
const root = join(docs, '..');
const site = join(docs, '.vitepress', 'dist');
const shots = join(docs, '.screenshots');

/** The widths every page is looked at, with the height of a screen. */
const VIEWPORTS = [
  { width: 1280, height: 900, mobile: false },
  { width: 390, height: 844, mobile: true },
] as const;
type Viewport = (typeof VIEWPORTS)[number];

/** At most this many screens of one page are saved (the longest guides on a phone are about 40). */
const MAX_SCREENS = 60;

const problems: string[] = [];

function reportLinks(what: string, report: LinkReport): void {
  console.log(
    `docs:check: ${what}: ${report.links} links to ${report.targets} targets` +
      `${report.external > 0 ? ` (${report.external} to other sites, not followed)` : ''}, ${report.broken.length} broken`,
  );
  problems.push(...report.broken.map((broken) => `broken link: ${broken}`));
}

/** Loads a page of the site in the tab and waits until it is rendered, its fonts loaded. */
async function load(page: Page, url: string): Promise<void> {
  // The old document is marked, so the wait below cannot be satisfied by it.
  await page.evaluate('window.__dynafoldStale = true').catch(() => undefined);
  await page.navigate(url);
  await page.waitFor(
    url,
    `!window.__dynafoldStale && document.readyState === 'complete' && document.fonts.status === 'loaded' &&
     document.querySelector('.vp-doc h1, .VPHome')`,
  );
}

function screenshotFile(viewport: Viewport, path: string, screen?: number): string {
  const name = path === '/' ? 'index' : path.replace(/^\//, '').replace(/\/$/, '/index');
  return join(shots, String(viewport.width), `${name}${screen === undefined ? '' : `.${String(screen).padStart(2, '0')}`}.png`);
}

async function save(file: string, png: Buffer): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, png);
}

/** The first screen, or for a page to look at every screen, one file each. */
async function screenshots(page: Page, viewport: Viewport, path: string, everyScreen: boolean): Promise<number> {
  if (!everyScreen) {
    await save(screenshotFile(viewport, path), await page.screenshot());
    return 1;
  }
  const height = await page.evaluate<number>('document.documentElement.scrollHeight');
  const screens = Math.min(MAX_SCREENS, Math.ceil(height / viewport.height));
  for (let screen = 1; screen <= screens; screen++) {
    const y = (screen - 1) * viewport.height;
    const clip = { x: 0, y, width: viewport.width, height: Math.min(viewport.height, height - y) };
    await save(screenshotFile(viewport, path, screen), await page.screenshot(clip));
  }
  return screens;
}

/** What a laptop's and a phone's layout may not do: scroll the page sideways; at 1,280 px, a code block or a table. */
function judge(viewport: Viewport, path: string, layout: Layout): void {
  const at = `${path} at ${viewport.width} px`;
  if (layout.pageOverflow > 0) problems.push(`${at}: the page scrolls sideways by ${layout.pageOverflow} px`);
  if (viewport.mobile) return;
  for (const block of layout.codeOverflows)
    problems.push(
      `${at}: a code block scrolls sideways by ${block.px} px (a line of ${block.chars} characters: ${JSON.stringify(block.text.trim())})`,
    );
  for (const table of layout.tableOverflows) problems.push(`${at}: the table "${table.text}" scrolls sideways by ${table.px} px`);
}

/** The navigation, the sidebar and highlighted code blocks, on a page at 1,280 px. */
async function checkChrome(page: Page, path: string, codeBlocks: number): Promise<void> {
  if (codeBlocks > 0)
    await page.waitFor(
      `${codeBlocks} highlighted code blocks on ${path}`,
      `document.querySelectorAll('.vp-doc div[class*="language-"] pre.shiki span.line').length > 0 &&
       document.querySelectorAll('.vp-doc div[class*="language-"]').length >= ${codeBlocks}`,
    );
  const nav = await page.evaluate<string[]>(`[...document.querySelectorAll('.VPNavBarMenu a')].map((a) => a.textContent.trim())`);
  for (const item of ['Getting started', 'Guides', 'Concepts', 'Reference'])
    if (!nav.includes(item)) problems.push(`${path}: no "${item}" in the navigation (${nav.join(', ')})`);
  await page.waitFor(`the sidebar's link to the store guide on ${path}`, `document.querySelector('.VPSidebar a[href$="/guides/store"]')`);
  await page.waitFor(`the search button on ${path}`, `document.querySelector('.VPNavBarSearch button')`);
}

/** The local search: its box opens, and a word the testing guide holds brings results. */
async function checkSearch(page: Page, word: string): Promise<void> {
  await page.evaluate(`document.querySelector('.VPNavBarSearch button').click()`);
  await page.waitFor('the search box', `document.querySelector('.VPLocalSearchBox input')`);
  await page.evaluate(`(() => {
    const input = document.querySelector('.VPLocalSearchBox input');
    input.value = ${JSON.stringify(word)};
    input.dispatchEvent(new Event('input', { bubbles: true }));
  })()`);
  await page.waitFor(`search results for "${word}"`, `document.querySelectorAll('.VPLocalSearchBox .results .result').length > 0`);
  await save(join(shots, 'search.png'), await page.screenshot());
}

interface Totals {
  pages: number;
  screenshots: number;
  codeBlocks: number;
  longestLine: { chars: number; path: string };
  widestCode: { px: number; box: number; path: string };
  mobileCodeOverflows: number;
}

async function checkPages(browser: Browser, base: string): Promise<Totals> {
  const only = new RegExp(process.env['DOCS_CHECK_PAGES'] ?? '');
  const pages = sitePages(site)
    .map((page) => page.path)
    .filter((path) => only.test(path));
  const totals: Totals = {
    pages: pages.length,
    screenshots: 0,
    codeBlocks: 0,
    longestLine: { chars: 0, path: '' },
    widestCode: { px: 0, box: 0, path: '' },
    mobileCodeOverflows: 0,
  };
  const page = await browser.open('about:blank');
  for (const viewport of VIEWPORTS) {
    await page.setViewport(viewport.width, viewport.height, viewport.mobile);
    for (const path of pages) {
      await load(page, `${base}${path}`);
      if (!viewport.mobile && path === '/getting-started') await checkChrome(page, path, 8);
      if (!viewport.mobile && path === '/guides/projections') {
        await checkChrome(page, path, 10);
        await checkSearch(page, 'projectionSpec');
        await load(page, `${base}${path}`);
      }
      const layout = await page.evaluate<Layout>(MEASURE_LAYOUT);
      judge(viewport, path, layout);
      if (viewport.mobile) totals.mobileCodeOverflows += layout.codeOverflows.length;
      else {
        totals.codeBlocks += layout.codeBlocks;
        if (layout.longestLine > totals.longestLine.chars) totals.longestLine = { chars: layout.longestLine, path };
        if (layout.widestCode.px > totals.widestCode.px) totals.widestCode = { ...layout.widestCode, path };
      }
      totals.screenshots += await screenshots(page, viewport, path, !path.startsWith('/reference/api/'));
    }
  }
  return totals;
}

async function main(): Promise<void> {
  reportLinks('the site', checkSiteLinks(site, root));
  reportLinks('README.md and CHANGELOG.md', checkMarkdownLinks(root, ['README.md', 'CHANGELOG.md']));

  rmSync(shots, { recursive: true, force: true });
  const server = await serveSite(site);
  try {
    const browser = await Browser.launch(process.env['CHROMIUM'] ?? 'chromium');
    try {
      const totals = await checkPages(browser, server.url);
      console.log(
        `docs:check: ${totals.pages} pages at ${VIEWPORTS.map((v) => `${v.width}`).join(' and ')} px, ${totals.screenshots} screenshots in ${shots}`,
      );
      console.log(
        `docs:check: ${totals.codeBlocks} code blocks; the longest line ${totals.longestLine.chars} characters (${totals.longestLine.path}), ` +
          `the widest block ${totals.widestCode.px} px in a box of ${totals.widestCode.box} px at 1280 px (${totals.widestCode.path}); ` +
          `${totals.mobileCodeOverflows} blocks scroll sideways at 390 px`,
      );
    } finally {
      await browser.close();
    }
  } finally {
    // Closed whatever happened before: a listening server keeps the process alive.
    await server.close();
  }
  if (problems.length > 0) throw new Error(`docs:check: ${problems.length} problems:\n  ${problems.join('\n  ')}`);
  console.log('docs:check: ok');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});

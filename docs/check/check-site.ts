/**
 * The built site as a reader sees it: serves docs/.vitepress/dist, opens the getting-started page and a
 * guide in headless Chromium, and checks that their code blocks are highlighted, that the navigation and
 * the sidebar link the pages, and that the local search finds a word of the guides. Screenshots go to
 * docs/.screenshots/ (not committed). Exits non-zero at the first thing missing.
 *
 *   npm run docs:build && npm run docs:check      (CHROMIUM=<path> if `chromium` is not on PATH)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, type Page } from './browser';
import { serveSite } from './static-server';

const docs = join(__dirname, '..');
const shots = join(docs, '.screenshots');

async function save(page: Page, name: string): Promise<void> {
  const file = join(shots, `${name}.png`);
  writeFileSync(file, await page.screenshot());
  console.log(`docs:check: ${file}`);
}

/** A page of the site: loaded, its code blocks highlighted, the top navigation and the sidebar there. */
async function checkPage(browser: Browser, base: string, path: string, codeBlocks: number): Promise<Page> {
  const page = await browser.open(`${base}${path}`);
  await page.waitFor(`the h1 of ${path}`, `document.querySelector('.vp-doc h1')`);
  if (codeBlocks > 0)
    await page.waitFor(
      `${codeBlocks} highlighted code blocks on ${path}`,
      `document.querySelectorAll('.vp-doc div[class*="language-"] pre.shiki span.line').length > 0 &&
     document.querySelectorAll('.vp-doc div[class*="language-"]').length >= ${codeBlocks}`,
    );
  const nav = await page.evaluate<string[]>(`[...document.querySelectorAll('.VPNavBarMenu a')].map((a) => a.textContent.trim())`);
  for (const item of ['Getting started', 'Guides', 'Concepts', 'Reference'])
    if (!nav.includes(item)) throw new Error(`docs:check: ${path}: no "${item}" in the navigation (${nav.join(', ')})`);
  await page.waitFor(`the sidebar's link to the store guide on ${path}`, `document.querySelector('.VPSidebar a[href$="/guides/store"]')`);
  await page.waitFor(`the search button on ${path}`, `document.querySelector('.VPNavBarSearch button')`);
  return page;
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
}

async function main(): Promise<void> {
  mkdirSync(shots, { recursive: true });
  const site = await serveSite(join(docs, '.vitepress', 'dist'));
  const browser = await Browser.launch(process.env['CHROMIUM'] ?? 'chromium');
  try {
    const started = await checkPage(browser, site.url, '/getting-started', 8);
    await save(started, 'getting-started');
    await started.evaluate(`document.querySelector('#_3-run-it-locally').scrollIntoView()`);
    await save(started, 'getting-started-run-it');
    const guide = await checkPage(browser, site.url, '/guides/projections', 10);
    await save(guide, 'guide-projections');
    await checkSearch(guide, 'projectionSpec');
    await save(guide, 'search');
    const reference = await checkPage(browser, site.url, '/reference/errors', 0);
    await reference.waitFor('the error codes table', `document.querySelectorAll('.vp-doc table tr').length > 20`);
    await save(reference, 'reference-errors');
    console.log('docs:check: ok (getting started, a guide, the error codes, search)');
  } finally {
    // The server is closed whatever closing the browser does: a listening server keeps the process alive.
    try {
      await browser.close();
    } finally {
      await site.close();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});

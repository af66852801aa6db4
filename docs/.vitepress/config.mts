/**
 * The docs site (VitePress): pages in the order a user needs them, the API reference TypeDoc writes into
 * reference/api at build (its sidebar comes with it), and a local search index, so the site works offline.
 * A dead link fails the build (VitePress's default: `ignoreDeadLinks` is left unset), and so does any
 * warning of the bundler: `docs:build` prints none.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLogger, type Logger } from 'vite';
import { defineConfig, type DefaultTheme, type MarkdownRenderer } from 'vitepress';

/** The bundler's logger, with a warning failing the build (after it is printed). */
function strictLogger(): Logger {
  const logger = createLogger();
  const warn = logger.warn.bind(logger);
  logger.warn = (message, options) => {
    warn(message, options);
    process.exitCode = 1;
  };
  return logger;
}

/** Whether a block names its file: a fence's `[title]` (```` ```ts [src/orders.ts] ````). */
function titled(token: { info: string }): boolean {
  return /\[.+\]/.test(token.info);
}

/**
 * A code block that is a file names it in its fence's info. VitePress shows a title only as a tab of a
 * code group, so a titled block outside one becomes a code group of its own, a single tab.
 */
function fileTitles(md: MarkdownRenderer): void {
  md.core.ruler.push('dynafold_file_titles', (state) => {
    const tokens = state.tokens;
    let inGroup = 0;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token.type === 'container_code-group_open') inGroup++;
      else if (token.type === 'container_code-group_close') inGroup--;
      else if (token.type === 'fence' && inGroup === 0 && titled(token)) {
        const open = new state.Token('container_code-group_open', 'div', 1);
        const close = new state.Token('container_code-group_close', 'div', -1);
        open.block = close.block = true;
        tokens.splice(i, 1, open, token, close);
        i += 2;
      }
    }
  });
}

/** TypeDoc's sidebar for the API reference, once `typedoc` has run (see docs:build). */
function apiSidebar(): DefaultTheme.SidebarItem[] {
  const file = fileURLToPath(new URL('../reference/api/typedoc-sidebar.json', import.meta.url));
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DefaultTheme.SidebarItem[]) : [];
}

const guides: DefaultTheme.SidebarItem[] = [
  { text: 'The store', link: '/guides/store' },
  { text: "Changing an event's schema", link: '/guides/schema-evolution' },
  { text: 'Personal data and erasure', link: '/guides/personal-data' },
  { text: 'What appends and loads cost', link: '/guides/store-costs' },
  { text: 'Projections', link: '/guides/projections' },
  { text: 'Beyond one source', link: '/guides/beyond-one-source' },
  { text: 'The change feed', link: '/guides/change-feed' },
  { text: 'Reactions and workflows', link: '/guides/reactions' },
  { text: 'Services', link: '/guides/services' },
  { text: 'Operations', link: '/guides/operations' },
  { text: 'Observability', link: '/guides/observability' },
  { text: 'Deploy', link: '/guides/deploy' },
  { text: 'Testing', link: '/guides/testing' },
];

const reference: DefaultTheme.SidebarItem[] = [
  { text: 'API', link: '/reference/api/', collapsed: true, items: apiSidebar() },
  { text: 'Error codes', link: '/reference/errors' },
  { text: 'Options and defaults', link: '/reference/options' },
  { text: 'The command line', link: '/reference/cli' },
];

export default defineConfig({
  title: 'dynafold',
  description: 'Event sourcing on DynamoDB for TypeScript: event streams, exactly-once projections, a change feed.',
  cleanUrls: true,
  lastUpdated: false,
  markdown: { config: fileTitles },
  vite: {
    customLogger: strictLogger(),
    // The local search index is one chunk of about 1.6 MB for the site's 350 pages, loaded only when the
    // search box opens; every other chunk stays under Vite's default limit of 500 kB.
    build: { chunkSizeWarningLimit: 4000 },
  },
  themeConfig: {
    nav: [
      { text: 'Getting started', link: '/getting-started' },
      { text: 'Guides', link: '/guides/store' },
      { text: 'Concepts', link: '/concepts' },
      { text: 'Reference', link: '/reference/api/' },
      { text: 'Benchmarks', link: '/benchmarks' },
    ],
    sidebar: [
      { text: 'Getting started', link: '/getting-started' },
      { text: 'Guides', items: guides },
      { text: 'Concepts', link: '/concepts' },
      { text: 'Reference', items: reference },
      { text: 'Reliability and benchmarks', link: '/benchmarks', items: [{ text: 'The AWS bill, by library', link: '/guides/benchmarks-cost' }] },
      { text: 'Contributing', link: '/contributing' },
    ],
    search: { provider: 'local' },
    socialLinks: [{ icon: 'github', link: 'https://github.com/dynafold/dynafold' }],
    outline: { level: [2, 3] },
  },
});

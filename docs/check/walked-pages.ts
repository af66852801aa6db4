/**
 * The pages `npm run docs:walk` follows, in order, in the one app Getting started builds: every file they
 * show is a file of that app (examples/snippets/app), and every command they give runs in it.
 */
export const WALKED_PAGES = [
  'docs/getting-started.md',
  'docs/guides/observability.md',
  'docs/guides/personal-data.md',
  'docs/guides/services.md',
  'docs/guides/operations.md',
  'docs/guides/testing.md',
] as const;

/**
 * How wide the site's code may be: a code block of the docs holds 72 characters a line at 1,280 px beside
 * the outline (13 px monospace, docs/.vitepress/theme/custom.css), the width examples/ are formatted at
 * (.prettierrc.json's override). What the site generates keeps to it too: the API reference's examples,
 * the command line's help.
 */
export const CODE_COLUMNS = 72;

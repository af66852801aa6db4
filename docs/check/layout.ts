/**
 * What a page's layout looks like in the browser, measured in the page: whether the page itself scrolls
 * sideways, and which code blocks and tables do (their content wider than their box).
 */

export interface Overflow {
  /** How many pixels the content passes the box by. */
  readonly px: number;
  /** The code block's longest line, or the table's first header cell. */
  readonly text: string;
  /** The longest line's length in characters (code blocks). */
  readonly chars: number;
}

export interface Layout {
  /** The page's width past the viewport (0 when nothing scrolls the page sideways). */
  readonly pageOverflow: number;
  readonly codeBlocks: number;
  /** Code blocks that scroll sideways. */
  readonly codeOverflows: ReadonlyArray<Overflow>;
  /** The longest line of any code block, in characters. */
  readonly longestLine: number;
  /** The widest code block's content, in pixels, and the width of its box. */
  readonly widestCode: { readonly px: number; readonly box: number };
  /** Tables that scroll sideways. */
  readonly tableOverflows: ReadonlyArray<Overflow>;
}

/** An expression that evaluates to the page's {@link Layout}. */
export const MEASURE_LAYOUT = `(() => {
  const longest = (lines) => lines.reduce((a, b) => (b.length > a.length ? b : a), '');
  const blocks = [...document.querySelectorAll('.vp-doc div[class*="language-"] pre')].map((pre) => {
    const line = longest([...pre.querySelectorAll('.line')].map((l) => l.textContent ?? ''));
    return { px: pre.scrollWidth - pre.clientWidth, text: line, chars: line.length, content: pre.scrollWidth, box: pre.clientWidth };
  });
  const tables = [...document.querySelectorAll('.vp-doc table')].map((table) => ({
    px: table.scrollWidth - table.clientWidth,
    text: (table.querySelector('th')?.textContent ?? '').trim(),
    chars: 0,
  }));
  const widest = blocks.reduce((a, b) => (b.content > a.content ? b : a), { content: 0, box: 0 });
  return {
    pageOverflow: Math.max(0, document.documentElement.scrollWidth - window.innerWidth),
    codeBlocks: blocks.length,
    codeOverflows: blocks.filter((b) => b.px > 0).map(({ px, text, chars }) => ({ px, text, chars })),
    longestLine: blocks.reduce((max, b) => Math.max(max, b.chars), 0),
    widestCode: { px: widest.content, box: widest.box },
    tableOverflows: tables.filter((t) => t.px > 0),
  };
})()`;

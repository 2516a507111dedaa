/**
 * PowerShell's lexical pieces that the never-run rule's Windows reader (windows-tree.ts) skips or
 * takes whole: here-strings and the group a parenthesis opens.
 */

/** A here-string: its quote (`'` takes the text as it is, `"` expands it), the text's bounds and the index past its closing `'@`. */
export interface HereString {
  quote: "'" | '"';
  bodyStart: number;
  bodyEnd: number;
  end: number;
}

/** A here-string's opening, `@'` or `@"` then the end of the line; its text starts on the next. */
const HERE_OPENING = /@(['"])[ \t]*\r?\n/y;
/** Where each kind of here-string closes: a line break, then its quote and `@`. */
const HERE_CLOSING = { "'": /\r?\n[ \t]*'@/g, '"': /\r?\n[ \t]*"@/g } as const;

/**
 * The here-string that starts at `at` (`@'…'@`, `@"…"@`), or null. It ends at a line that starts with the
 * closing quote and `@`; one after spaces is taken as its end too, so that none ends later than PowerShell's.
 * An unclosed one runs to the end of the text.
 */
export function hereStringAt(text: string, at: number): HereString | null {
  HERE_OPENING.lastIndex = at;
  const opening = HERE_OPENING.exec(text);
  if (!opening) return null;
  const quote = opening[1] === "'" ? "'" : '"';
  const bodyStart = at + opening[0].length;
  const closing = HERE_CLOSING[quote];
  // The text may be empty: the closing line then follows the opening at once.
  closing.lastIndex = bodyStart - 1 - (text[bodyStart - 2] === '\r' ? 1 : 0);
  const match = closing.exec(text);
  if (!match) return { quote, bodyStart, bodyEnd: text.length, end: text.length };
  const bodyEnd = Math.max(bodyStart, match.index);
  return { quote, bodyStart, bodyEnd, end: match.index + match[0].length };
}

/** The index of the `)` that closes a group opened just before `from`, quotes and here-strings respected; text.length if none. */
export function closingParen(text: string, from: number): number {
  let depth = 1;
  let quote: string | null = null;
  for (let i = from; i < text.length; i++) {
    const char = text[i] as string;
    const here = quote === null && char === '@' ? hereStringAt(text, i) : null;
    if (here) i = here.end - 1;
    else if (char === '`' && quote !== "'") i++;
    else if (quote !== null) quote = char === quote ? null : quote;
    else if (char === '"' || char === "'") quote = char;
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i;
  }
  return text.length;
}

/**
 * The first `max` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair (an
 * emoji, say): endpoints refuse a whole request whose JSON holds a lone half of one.
 */
export function headOf(text: string, max: number): string {
  const end = max > 0 && /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return text.slice(0, end);
}

/** `text`, or when longer than `max` characters its start ending in an ellipsis, `max` in all. */
export function cutWithEllipsis(text: string, max: number): string {
  return text.length > max ? `${headOf(text, max - 1)}…` : text;
}

/** `text` on one line (white space runs as one space), cut to at most `max` characters with an ellipsis. */
export function oneLineHead(text: string, max: number): string {
  return cutWithEllipsis(text.replace(/\s+/g, ' ').trim(), max);
}

/** A lone half of a surrogate pair: a high one not followed by a low one, or a low one after no high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with every lone half of a surrogate pair replaced by U+FFFD, so that it encodes as UTF-8. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

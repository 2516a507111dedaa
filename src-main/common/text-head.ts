/**
 * The first `max` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair (an
 * emoji, say): endpoints refuse a whole request whose JSON holds a lone half of one.
 */
export function headOf(text: string, max: number): string {
  const end = max > 0 && /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return text.slice(0, end);
}

/** `text` on one line (white space runs as one space), cut to at most `max` characters with an ellipsis. */
export function oneLineHead(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${headOf(line, max - 1)}…` : line;
}

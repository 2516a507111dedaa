/**
 * Characters bash's brace expansion of one word may write, and this many more for each of the word's,
 * before the word is refused as too large to read. Every word it makes is checked, so the work grows
 * with all they hold: two lists of thousands (`{a1,…}{b1,…}`) make millions of words, which no command
 * means and no check can read in time.
 */
const BRACE_FLOOR = 200_000;
const BRACE_PER_CHARACTER = 8;

/**
 * The words bash's brace expansion makes of `word` (`a{b,c}` is ab and ac; a list inside another is
 * expanded first), or null when they would hold more characters together than the budget allows.
 */
export function braceWords(word: string): string[] | null {
  const words: string[] = [];
  const pending = [word];
  let budget = BRACE_FLOOR + BRACE_PER_CHARACTER * word.length;
  while (pending.length > 0) {
    const next = pending.pop() as string;
    const brace = firstList(next);
    if (brace === null) {
      words.push(next);
      continue;
    }
    const { start, end, options } = brace;
    // Counted before any is built: each option makes a copy of the rest of the word.
    const rest = next.length - (end - start);
    budget -= options.reduce((sum, option) => sum + rest + option.length + 1, 0);
    if (budget < 0) return null;
    for (const option of options) pending.push(`${next.slice(0, start)}${option}${next.slice(end)}`);
  }
  return words;
}

/**
 * The first `{…,…}` that holds no other brace (not a `${…}` variable): where it starts and ends, and its
 * options, each once (the same option twice makes the same words).
 */
function firstList(word: string): { start: number; end: number; options: string[] } | null {
  // Found in one pass (a comma inside the pattern would make it backtrack on long words).
  for (const pair of word.matchAll(/(?<!\$)\{([^{}]*)\}/g)) {
    const body = pair[1] ?? '';
    if (body.includes(',')) return { start: pair.index, end: pair.index + pair[0].length, options: [...new Set(body.split(','))] };
  }
  return null;
}

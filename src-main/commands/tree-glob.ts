/** Globs as the never-run rule (whole-tree.ts) matches them against the trees it guards, in linear time. */

/** A glob's parts: `*` (any run within one segment), `?` (one character but /), or a test of one character (a class, or itself). */
export type GlobPart = '*' | ((char: string) => boolean);

/** A glob in parts, in any case: `[…]` a class (`[!…]` negated) of single characters and ranges. */
export function globParts(glob: string): GlobPart[] {
  const parts: GlobPart[] = [];
  // Past the last `]`, a `[` is itself: no search for one (many `[` would make it quadratic).
  const lastClose = glob.lastIndexOf(']');
  for (let i = 0; i < glob.length; i++) {
    const char = (glob[i] as string).toLowerCase();
    const close = char === '[' && i + 2 <= lastClose ? glob.indexOf(']', i + 2) : -1;
    // A run of `*` matches what one does: kept as one, however long the run.
    if (char === '*') {
      if (parts.at(-1) !== '*') parts.push('*');
    }
    else if (char === '?') parts.push((next) => next !== '/');
    else if (close !== -1) {
      const body = glob.slice(i + 1, close).toLowerCase();
      const negated = /^[!^]/.test(body);
      const ranges = [...(negated ? body.slice(1) : body).matchAll(/(.)(?:-(.))?/gs)].map((range) => [range[1] ?? '', range[2] ?? range[1] ?? '']);
      parts.push((next) => next !== '/' && ranges.some(([low = '', high = '']) => next >= low && next <= high) !== negated);
      i = close;
    } else parts.push((next) => next === char);
  }
  return parts;
}

/** Whether `path` matches the glob's parts, in time linear in each (no backtracking, however many `*`). */
export function globMatches(parts: readonly GlobPart[], path: string): boolean {
  const subject = path.toLowerCase();
  // Each part but `*` takes one character: a glob of more such parts than the path has characters cannot match.
  if (parts.filter((part) => part !== '*').length > subject.length) return false;
  // matched[j]: the parts read so far match the first j characters.
  let matched = Array.from({ length: subject.length + 1 }, (_, j) => j === 0);
  for (const part of parts) {
    const next = Array.from({ length: subject.length + 1 }, () => false);
    for (let j = 0; j <= subject.length; j++) {
      const char = subject[j - 1] ?? '';
      if (part === '*') next[j] = matched[j] === true || (j > 0 && next[j - 1] === true && char !== '/');
      else next[j] = j > 0 && matched[j - 1] === true && part(char);
    }
    matched = next;
  }
  return matched[subject.length] === true;
}

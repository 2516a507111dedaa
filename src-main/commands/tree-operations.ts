import { programOf } from './shell-text';

/**
 * The programs the never-run rule (whole-tree.ts) reads, and which of their operands each would take
 * with it. Whether an operand is a whole tree is the caller's to say (`takesWhole`), from its folder.
 */

/** The programs, and what makes each recursive (chmod's -r is "remove read", not recursive). */
export const TREE_PROGRAMS: Record<string, RegExp> = {
  rm: /^-[a-zA-Z]*[rR]/,
  chmod: /^-[a-zA-Z]*R/,
  chown: /^-[a-zA-Z]*R/,
  chgrp: /^-[a-zA-Z]*R/,
};

/**
 * find's words that keep everything it walks: options of the walk and actions that only print. With
 * no other test (-name, -type, -mtime…), `-delete` or an `-exec rm {}` takes all under the start.
 */
const FIND_KEEPS_ALL = new Set(['-depth', '-d', '-xdev', '-mount', '-noleaf', '-ignore_readdir_race', '-noignore_readdir_race', '-follow', '-daystart', '-print', '-print0', '-true', '-a', '-and']);

/**
 * The starting point of `find [options] start… expression` (`args`, its words after find) it empties:
 * one that is a whole tree, when the expression deletes (`-delete`, or an `-exec`/`-execdir`/`-ok` of
 * rm, chmod, chown or chgrp on `{}`: find does the walking, so no -r is needed) and selects nothing out.
 */
export function findTarget(args: readonly string[], takesWhole: (operand: string) => boolean): string | undefined {
  let i = 0;
  while (i < args.length && /^-(?:[HLP]|O\d|D)$/.test(args[i] as string)) i += args[i] === '-D' ? 2 : 1;
  const starts: string[] = [];
  while (i < args.length && !/^[-(!]/.test(args[i] as string)) starts.push(args[i++] as string);
  let deletes = false;
  for (; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '-delete') deletes = true;
    else if (['-exec', '-execdir', '-ok', '-okdir'].includes(word)) {
      const end = args.findIndex((next, at) => at > i && (next === ';' || next === '+'));
      const command = args.slice(i + 1, end === -1 ? args.length : end);
      if (command.includes('{}') && command.some((next) => Object.hasOwn(TREE_PROGRAMS, programOf(next)))) deletes = true;
      i = end === -1 ? args.length : end;
    } else if (word === '-mindepth' || word === '-maxdepth') i++;
    else if (!FIND_KEEPS_ALL.has(word)) return undefined;
  }
  // GNU find walks the folder it runs in when given no starting point.
  return deletes ? (starts.length === 0 ? ['.'] : starts).find(takesWhole) : undefined;
}

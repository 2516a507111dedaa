import { homedir } from 'node:os';
import { splitArgs } from '../device/split-args';

/**
 * A floor under the deny list that no setting removes: a command that removes a whole tree (the root,
 * a top-level system folder, the home folder), or recursively hands it over or changes its
 * permissions. It is read from the command's words rather than matched by a pattern, so option order
 * (`rm -r -f /`), quoting (`"$HOME"/*`), dot and double slashes (`/./*`) and long option lists neither
 * hide it nor slow the check down, and a later line of a script is never taken for its target.
 */

/** Folders directly under the root whose loss breaks the system. */
const SYSTEM_FOLDERS = ['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'media', 'mnt', 'opt', 'root', 'sbin', 'srv', 'usr', 'var'];

/** The programs, and what makes each recursive (chmod's -r is "remove read", not recursive). */
const TREE_PROGRAMS: Record<string, RegExp> = {
  rm: /^-[a-zA-Z]*[rR]/,
  chmod: /^-[a-zA-Z]*R/,
  chown: /^-[a-zA-Z]*R/,
  chgrp: /^-[a-zA-Z]*R/,
};

/** Shell text cut into the simple commands it runs: lines, and ; && || | & ( ) and backquotes between them. */
function simpleCommands(text: string): string[] {
  return text.split(/\r?\n|;|&&|\|\||[|&()`]/);
}

function words(command: string): string[] {
  try {
    return splitArgs(command);
  } catch {
    return command.split(/\s+/).filter((word) => word !== '');
  }
}

/** A path operand with home spelled out as `~`, slashes collapsed and `.` segments and trailing globs gone. */
function normalisePath(operand: string, home: string): string {
  let path = operand.replace(/^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/, '~');
  if (home !== '/' && (path === home || path.startsWith(`${home}/`))) path = `~${path.slice(home.length)}`;
  path = path.replace(/\/+/g, '/').replace(/\/(?:\.\/)+/g, '/');
  for (let before = ''; before !== path; ) {
    before = path;
    path = path.replace(/(?:\/\.?\*|\/\.|\/)$/, '');
  }
  return path;
}

/** Whether removing `operand` (recursively) takes the root, a top-level system folder or home with it. */
export function isWholeTree(operand: string, home = homedir()): boolean {
  const path = normalisePath(operand, home);
  return path === '' || path === '~' || SYSTEM_FOLDERS.some((folder) => path === `/${folder}`);
}

/**
 * The first simple command in `text` that removes, recursively hands over or re-permissions a whole
 * tree, as `program operand` (for the reason shown), or null.
 */
export function wholeTreeCommand(text: string, home = homedir()): string | null {
  for (const command of simpleCommands(text)) {
    const all = words(command);
    // Wrappers (sudo, env, xargs, busybox...) come first: the program is wherever its name appears.
    // Lower case: a case-insensitive file system (macOS, Windows) runs RM as rm.
    const programOf = (word: string): string => (word.split('/').pop() ?? '').toLowerCase();
    const start = all.findIndex((word) => Object.hasOwn(TREE_PROGRAMS, programOf(word)));
    if (start === -1) continue;
    const program = programOf(all[start] as string);
    const recursiveFlag = TREE_PROGRAMS[program] as RegExp;
    const rest = all.slice(start + 1);
    const endOfOptions = rest.indexOf('--');
    const options = endOfOptions === -1 ? rest : rest.slice(0, endOfOptions);
    const recursive = options.some((word) => word === '--recursive' || (!word.startsWith('--') && recursiveFlag.test(word)));
    if (!recursive) continue;
    const operands = [...options.filter((word) => !word.startsWith('-')), ...(endOfOptions === -1 ? [] : rest.slice(endOfOptions + 1))];
    const target = operands.find((operand) => isWholeTree(operand, home));
    if (target !== undefined) return `${program} ${target}`;
  }
  return null;
}

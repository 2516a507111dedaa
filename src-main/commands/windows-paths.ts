/**
 * Paths as the never-run rule's Windows reader (windows-tree.ts) reads them: spelt out from the home and
 * the folder a command runs in, and whether removing one recursively takes a whole tree with it.
 */

const SYSTEM_FOLDERS = ['windows', 'program files', 'program files (x86)', 'programdata', 'users'];

/** Where paths are read from: the user's home, and the folder relative paths are read from (lower case, backslashes), or null when not known. */
export interface PathScope {
  home: string;
  cwd: string | null;
}

/**
 * `path` as a lower-case absolute path with backslashes, `.` and `..` resolved, `~` spelt out and a
 * relative path read from the context's folder; null when that folder is not known.
 */
export function resolvePath(path: string, context: PathScope, fallbackCwd: string | null): string | null {
  // A variable not known, a cmd variable or a value computed when it runs: where it points is not known.
  if (/[$%]|^[(@]/.test(path)) return null;
  let spelt = path
    .replace(/^(?:microsoft\.powershell\.core\\)?filesystem::/i, '')
    .replace(/\//g, '\\')
    .replace(/^\\\\[?.]\\(?=[a-z]:)/i, '');
  // `C:build` is read from the folder last used on C:, which is not known.
  if (/^[a-z]:[^\\]/i.test(spelt)) return null;
  if (/^~(?:\\|$)/.test(spelt)) spelt = context.home.replace(/\//g, '\\') + spelt.slice(1);
  const homeDrive = (/^[a-z]:/i.exec(context.home)?.[0] ?? 'c:').toLowerCase();
  let absolute: string;
  if (/^[a-z]:/i.test(spelt)) absolute = spelt;
  else if (spelt.startsWith('\\')) absolute = `${homeDrive}${spelt}`;
  else {
    const base = context.cwd ?? (fallbackCwd === null ? null : resolvePath(fallbackCwd, { ...context, cwd: null }, null));
    if (base === null) return null;
    absolute = `${base}\\${spelt}`;
  }
  const [drive = '', ...rest] = absolute.toLowerCase().split('\\');
  const parts: string[] = [];
  for (const part of rest) {
    if (part === '..') parts.pop();
    else if (part !== '' && part !== '.') parts.push(part);
  }
  return [drive.slice(0, 2), ...parts].join('\\');
}

/** Whether removing `operand` recursively takes a drive root, a top-level system folder or a home: itself, or a tree its glob matches. */
export function takesWhole(operand: string, context: PathScope): boolean {
  const resolved = resolvePath(operand, context, null);
  if (resolved === null) return false;
  // A trailing `\*` or `\*.*` takes all the tree holds.
  const path = resolved.replace(/(?:\\\*(?:\.\*)?)+$/, '');
  const home = resolvePath(context.home, { ...context, cwd: null }, null);
  const drive = /^[a-z]:/.test(path) ? path.slice(0, 2) : 'c:';
  const trees = [drive, ...SYSTEM_FOLDERS.map((folder) => `${drive}\\${folder}`), ...(home === null ? [] : [home])];
  if (trees.includes(path) || /^[a-z]:\\users\\[^\\*?]+$/.test(path)) return true;
  if (!/[*?]/.test(path)) return false;
  return [...trees, `${drive}\\users\\${home?.split('\\').pop() ?? ''}`].some((tree) => globMatches(path, tree));
}

/** Whether `glob` (`*` any run within a folder name, `?` one character of one) matches `path`, in time linear in each. */
function globMatches(glob: string, path: string): boolean {
  // Each character but `*` takes one of the path's: a glob of more cannot match.
  if (glob.replaceAll('*', '').length > path.length) return false;
  // matched[j]: the glob read so far matches the first j characters of the path.
  let matched = Array.from({ length: path.length + 1 }, (_, j) => j === 0);
  for (const part of glob) {
    const next = Array.from({ length: path.length + 1 }, () => false);
    for (let j = 0; j <= path.length; j++) {
      const char = path[j - 1] ?? '';
      if (part === '*') next[j] = matched[j] === true || (j > 0 && next[j - 1] === true && char !== '\\');
      else next[j] = j > 0 && matched[j - 1] === true && (part === '?' ? char !== '\\' : char === part);
    }
    matched = next;
  }
  return matched[path.length] === true;
}

/** The variables whose values say where the trees are, as Windows sets them for the user of `home`. */
export function knownVariables(home: string): Map<string, string> {
  const drive = /^[a-z]:/i.exec(home)?.[0] ?? 'C:';
  const user = home.split(/[\\/]/).filter((part) => part !== '').pop() ?? '';
  return new Map([
    ['home', home],
    ['env:userprofile', home],
    ['env:homedrive', drive],
    ['env:homepath', home.slice(/^[a-z]:/i.test(home) ? 2 : 0)],
    ['env:username', user],
    ['env:systemdrive', 'C:'],
    ['env:systemroot', 'C:\\Windows'],
    ['env:windir', 'C:\\Windows'],
    ['env:programfiles', 'C:\\Program Files'],
    ['env:programfiles(x86)', 'C:\\Program Files (x86)'],
    ['env:programw6432', 'C:\\Program Files'],
    ['env:programdata', 'C:\\ProgramData'],
    ['env:allusersprofile', 'C:\\ProgramData'],
    ['env:public', 'C:\\Users\\Public'],
  ]);
}

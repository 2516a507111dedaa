import type { Mode } from './powershell-text';

/**
 * A command's words as the never-run rule's Windows reader (windows-tree.ts) reads them: where its program
 * is and what it is called, what Remove-Item (or a listing, which takes the same parameters) is given,
 * the text a shell or Invoke-Expression is given to run, and what a pipeline's commands pass on.
 */

/** Programs that run the command in their arguments as it is (Windows's sudo, gsudo). */
const WRAPPERS = new Set(['sudo', 'gsudo']);

/** A program's name as it is called: `C:\Windows\System32\cmd.exe` is cmd, `Microsoft.PowerShell.Management\Remove-Item` remove-item. */
export function programOf(word: string): string {
  return (word.split(/[\\/]/).pop() ?? '').toLowerCase().replace(/\.(?:exe|com|bat|cmd)$/, '');
}

/**
 * Where the command's program is: past `&`, `.`, the wrappers (with their options) and a script block's
 * attributes and `param(…)`, which the first statement may follow on the same line.
 */
export function programAt(all: readonly string[]): number {
  let at = 0;
  while (at < all.length) {
    const word = all[at] as string;
    if (word === '&' || word === '.' || /^param\(/i.test(word)) at++;
    else if (word.startsWith('[') && all.length - at > 1) {
      // An attribute before a block's param(…) (`[CmdletBinding()]`), which the words may cut.
      while (at < all.length && !(all[at] as string).endsWith(']')) at++;
      at++;
    }
    else if (word.toLowerCase() === 'param' && all[at + 1]?.startsWith('(')) at += 2;
    else if (WRAPPERS.has(programOf(word))) {
      at++;
      while (at < all.length && /^[-/]/.test(all[at] as string)) at++;
    } else break;
  }
  return at;
}

/**
 * Remove-Item's words (or those of an alias, or cmd's rd, rmdir, del, erase): whether it recurses
 * (-Recurse or a start of it, not `:$false`; `/s`), whether it keeps all or selects (-WhatIf, -Filter,
 * -Include of a pattern other than `*`; not -Exclude, which may keep nothing), and its path operands.
 */
export function readRemove(args: readonly string[]): { recursive: boolean; keeps: boolean; operands: string[] } {
  let recursive = false;
  let keeps = false;
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (/^(?:\/[a-z?])+$/i.test(word)) {
      if (/\/s/i.test(word)) recursive = true;
      continue;
    }
    // A redirection (`> out.txt`, `2>$null`, `*>&1`) and its file are no operands.
    if (/^[\d*]?>/.test(word)) {
      if (/>$/.test(word)) i++;
      continue;
    }
    if (!/^-[a-z]/i.test(word)) {
      operands.push(word);
      continue;
    }
    const colon = word.indexOf(':');
    const name = (colon === -1 ? word : word.slice(0, colon)).toLowerCase();
    const value = colon === -1 ? null : word.slice(colon + 1);
    const is = (parameter: string, shortest: number) => name.length >= shortest && parameter.startsWith(name);
    if (is('-recurse', 2)) recursive = value === null || !/^(?:\$false|0)$/i.test(value);
    else if (is('-whatif', 3) || name === '-wi') keeps = value === null || !/^(?:\$false|0)$/i.test(value);
    else if (is('-filter', 3) || is('-include', 3) || is('-exclude', 3)) {
      // -Exclude keeps all it does not name, and `-Include *` all there is: neither selects.
      const pattern = value ?? args[i + 1] ?? '';
      if (!is('-exclude', 3) && !/^(?:\*|\*\.\*)$/.test(pattern)) keeps = true;
      if (value === null) i++;
    } else if (is('-path', 2) || is('-literalpath', 2) || is('-pspath', 3) || name === '-lp') {
      if (value !== null) operands.push(value);
      else if (args[i + 1] !== undefined) operands.push(args[++i] as string);
    } else if ((is('-credential', 3) || is('-stream', 3) || takesValue(name)) && value === null) i++;
  }
  return { recursive, keeps, operands };
}

/**
 * The common parameters that take a value (`-ErrorAction SilentlyContinue`, `-ea 0`), and Get-ChildItem's
 * -Depth and -Attributes: their values are no paths.
 */
const VALUE_PARAMETERS: ReadonlyArray<readonly [string, number]> = [
  ['-erroraction', 3], ['-warningaction', 3], ['-informationaction', 4], ['-errorvariable', 7], ['-warningvariable', 3],
  ['-informationvariable', 12], ['-outvariable', 5], ['-outbuffer', 5], ['-pipelinevariable', 3], ['-depth', 3], ['-attributes', 3],
];
const VALUE_ALIASES = new Set(['-ea', '-wa', '-infa', '-ev', '-wv', '-iv', '-ov', '-ob', '-pv', '-at']);

function takesValue(name: string): boolean {
  return VALUE_ALIASES.has(name) || VALUE_PARAMETERS.some(([parameter, shortest]) => name.length >= shortest && parameter.startsWith(name));
}

/** powershell's and pwsh's options that take a value, and the shortest start of each that names it (`-ex`, `-wi`). */
const POWERSHELL_VALUE_OPTIONS: ReadonlyArray<readonly [string, number]> = [
  ['-executionpolicy', 3], ['-ep', 3], ['-windowstyle', 3], ['-workingdirectory', 3], ['-wd', 3], ['-outputformat', 2], ['-of', 3],
  ['-inputformat', 2], ['-if', 3], ['-configurationname', 4], ['-settingsfile', 2], ['-psconsolefile', 2], ['-version', 2],
  ['-custompipename', 3], ['-encodedarguments', 4],
];

/** The text a shell or Invoke-Expression is given to run, and how it reads it; null for other programs. */
export function runsText(program: string, args: readonly string[]): { text: string; mode: Mode } | null {
  if (program === 'cmd') {
    const run = args.findIndex((word) => /^\/[ckr]$/i.test(word) || /^\/[ckr]\S/i.test(word));
    if (run === -1) return null;
    const word = args[run] as string;
    return { text: [word.length > 2 ? word.slice(2) : '', ...args.slice(run + 1)].join(' '), mode: 'cmd' };
  }
  if (program === 'invoke-expression' || program === 'iex') {
    return { text: args.filter((word) => !/^-c(?:o(?:m(?:m(?:a(?:n(?:d)?)?)?)?)?)?$/i.test(word)).join(' '), mode: 'powershell' };
  }
  if (program !== 'powershell' && program !== 'pwsh') return null;
  for (let i = 0; i < args.length; i++) {
    const word = (args[i] as string).toLowerCase().replace(/^\//, '-');
    const is = (option: string, shortest: number) => word.length >= shortest && option.startsWith(word);
    if (word === '-e' || word === '-ec' || is('-encodedcommand', 4)) return { text: decodeCommand(args[i + 1] ?? ''), mode: 'powershell' };
    if (is('-command', 2)) return { text: args.slice(i + 1).join(' '), mode: 'powershell' };
    if (is('-file', 2)) return null;
    if (!word.startsWith('-')) return { text: args.slice(i).join(' '), mode: 'powershell' };
    // An option's value is not a command.
    if (POWERSHELL_VALUE_OPTIONS.some(([option, shortest]) => word === option.slice(0, shortest) || is(option, shortest + 1))) i++;
  }
  return null;
}

/** -EncodedCommand's base64 UTF-16LE text; '' when it is not base64. */
function decodeCommand(value: string): string {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, 'base64').toString('utf16le') : '';
}

/** Whether ForEach-Object's words after its name (`Delete $true`, `-MemberName Delete -ArgumentList $true`) delete each item with all it holds. */
export function deletesEach(args: readonly string[]): boolean {
  const named = (word: string) => word.length > 1 && ['-membername', '-argumentlist', '-args'].some((name) => name.startsWith(word.toLowerCase()));
  const [member, recursive] = args.filter((word) => !named(word));
  return member?.toLowerCase() === 'delete' && recursive !== undefined && !/^(?:\$false|0)$/i.test(recursive);
}

/**
 * The variable a command saves what it writes to: `-OutVariable t` (`-ov`, `+t` to add to it), or
 * Tee-Object's `-Variable t`, which saves what it is given (`tee`); null when it saves none.
 */
export function savedVariable(all: readonly string[]): { name: string; tee: boolean } | null {
  const at = programAt(all);
  const tee = ['tee-object', 'tee'].includes(programOf(all[at] ?? ''));
  const args = all.slice(at + 1);
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    const colon = word.indexOf(':');
    const name = (colon === -1 ? word : word.slice(0, colon)).toLowerCase();
    const names = tee ? name.length >= 3 && '-variable'.startsWith(name) : name === '-ov' || (name.length >= 5 && '-outvariable'.startsWith(name));
    const value = colon === -1 ? args[i + 1] : word.slice(colon + 1);
    if (names && value !== undefined) return { name: value.replace(/^\+/, '').toLowerCase(), tee };
  }
  return null;
}

/**
 * Programs that pass on the items piped into them, all or some (Where-Object, Sort-Object, Select-Object
 * -First …), or what may be their paths (`ForEach-Object FullName`, `% { $_.FullName }`): what follows them
 * may be given every item, as a filter or a block that cannot be read may keep or write them all.
 */
const PASSERS = new Set([
  'foreach-object', '%', 'where-object', 'where', '?', 'sort-object', 'sort', 'select-object', 'select', 'get-unique', 'gu', 'tee-object', 'tee',
  'write-output', 'echo', 'write', 'out-default',
]);

/** Whether a command only passes on (some of) the items piped into it. */
export function passes(command: readonly string[]): boolean {
  return PASSERS.has(programOf(command[programAt(command)] ?? ''));
}

/** The last of `commands` before `end` that is no passer, alone (or none): what those after it are given, all or some of it. */
export function source(commands: readonly string[][], end = commands.length): string[][] {
  let at = end - 1;
  while (at >= 0 && passes(commands[at] as string[])) at--;
  return at < 0 ? [] : [commands[at] as string[]];
}

/**
 * A block's header: the pipeline's commands, the first going on with the command a block before it ended
 * (`% -Begin { } -Process { … }` is one ForEach-Object), when it continues one.
 */
export function continuedHeader(before: readonly string[][] | undefined, commands: readonly string[][]): string[][] {
  if (before === undefined || before.length === 0) return [...commands];
  const [first = [], ...rest] = commands;
  return [...before.slice(0, -1), [...(before.at(-1) ?? []), ...first], ...rest];
}

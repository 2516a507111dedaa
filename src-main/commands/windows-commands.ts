/**
 * A command's words as the never-run rule's Windows reader (windows-tree.ts) reads them: where its program
 * is and what it is called, and what Remove-Item (or a listing, which takes the same parameters) is given.
 */

/** Programs that run the command in their arguments as it is (Windows's sudo, gsudo). */
const WRAPPERS = new Set(['sudo', 'gsudo']);

/** A program's name as it is called: `C:\Windows\System32\cmd.exe` is cmd, `Microsoft.PowerShell.Management\Remove-Item` remove-item. */
export function programOf(word: string): string {
  return (word.split(/[\\/]/).pop() ?? '').toLowerCase().replace(/\.(?:exe|com|bat|cmd)$/, '');
}

/**
 * Where the command's program is: past `&`, `.`, the wrappers (with their options) and a script block's
 * `param(…)`, which the first statement may follow on the same line.
 */
export function programAt(all: readonly string[]): number {
  let at = 0;
  while (at < all.length) {
    const word = all[at] as string;
    if (word === '&' || word === '.' || /^param\(/i.test(word)) at++;
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
 * -Include, -Exclude), and its path operands.
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
      keeps = true;
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

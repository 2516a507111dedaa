import { programAt, programOf } from './windows-commands';

/**
 * PowerShell aliases the text sets (`Set-Alias x Remove-Item`, `New-Alias -Name x -Value f`, `sal`,
 * `nal`), for the never-run rule's Windows reader (windows-tree.ts): a command called by such an alias
 * is read as one called by the command it names.
 */

const ALIAS_SETTERS = new Set(['set-alias', 'new-alias', 'sal', 'nal']);
/** Their parameters that take a value other than the name and the value. */
const OTHER_VALUES = ['-scope', '-option', '-description'];

/**
 * Records the alias a Set-Alias or New-Alias command sets (lower-case name to each command it was set
 * to, the latest last: one set in a child scope, `& { sal x … }`, names it only there); whether it is one.
 */
export function recordAlias(all: readonly string[], aliases: Map<string, string[]>): boolean {
  const at = programAt(all);
  if (!ALIAS_SETTERS.has(programOf(all[at] ?? ''))) return false;
  let name: string | undefined;
  let value: string | undefined;
  const positional: string[] = [];
  const args = all.slice(at + 1);
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    const colon = word.indexOf(':');
    const parameter = (colon === -1 ? word : word.slice(0, colon)).toLowerCase();
    const given = colon === -1 ? undefined : word.slice(colon + 1);
    if (!/^-[a-z]/i.test(word)) positional.push(word);
    else if (parameter.length > 1 && '-name'.startsWith(parameter)) name = given ?? args[++i];
    else if (parameter.length > 1 && '-value'.startsWith(parameter)) value = given ?? args[++i];
    else if (given === undefined && OTHER_VALUES.some((other) => parameter.length > 2 && other.startsWith(parameter))) i++;
  }
  name ??= positional.shift();
  value ??= positional.shift();
  // Kept as written: PowerShell looks an alias of an alias up when it is called, so what it names
  // then counts (`sal x y; sal y ri; x -r C:\`), however the other was set or set again meanwhile.
  if (name !== undefined && value !== undefined) {
    const values = aliases.get(name.toLowerCase()) ?? [];
    const again = values.findIndex((known) => known.toLowerCase() === value.toLowerCase());
    if (again !== -1) values.splice(again, 1);
    values.push(value);
    aliases.set(name.toLowerCase(), values);
  }
  return true;
}

/** How many aliases of aliases a call is followed through; one deeper is refused, as a text that cannot be read in time. */
export const MAX_ALIAS_CHAIN = 64;

/**
 * The command's words with its program spelt as each command the alias it is called by may name
 * (through aliases of aliases, each value they were set to), the latest first; the words as they are
 * when the text set no alias of it; null for aliases too many or too deep to follow.
 */
export function withAliases(all: string[], aliases: ReadonlyMap<string, readonly string[]>): string[][] | null {
  if (aliases.size === 0) return [all];
  const at = programAt(all);
  const programs: string[] = [];
  let looked = 0;
  const follow = (name: string, path: ReadonlySet<string>): boolean => {
    const values = aliases.get(name.toLowerCase());
    if (values === undefined) {
      if (path.size > 0 && !programs.includes(name)) programs.push(name);
      return true;
    }
    for (let i = values.length - 1; i >= 0; i--) {
      const value = values[i] as string;
      // A loop: PowerShell runs neither.
      if (path.has(value.toLowerCase())) continue;
      if (++looked > MAX_ALIAS_CHAIN || !follow(value, new Set([...path, name.toLowerCase()]))) return false;
    }
    return true;
  };
  if (!follow(all[at] ?? '', new Set())) return null;
  return programs.length === 0 ? [all] : programs.map((program) => [...all.slice(0, at), program, ...all.slice(at + 1)]);
}

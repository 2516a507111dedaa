import { programAt, programOf } from './windows-commands';

/**
 * PowerShell aliases the text sets (`Set-Alias x Remove-Item`, `New-Alias -Name x -Value f`, `sal`,
 * `nal`), for the never-run rule's Windows reader (windows-tree.ts): a command called by such an alias
 * is read as one called by the command it names.
 */

const ALIAS_SETTERS = new Set(['set-alias', 'new-alias', 'sal', 'nal']);
/** Their parameters that take a value other than the name and the value. */
const OTHER_VALUES = ['-scope', '-option', '-description'];

/** Records the alias a Set-Alias or New-Alias command sets (lower-case name to the command it names); whether it is one. */
export function recordAlias(all: readonly string[], aliases: Map<string, string>): boolean {
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
  // An alias of an alias names what that one names now: each is looked up once.
  if (name !== undefined && value !== undefined) aliases.set(name.toLowerCase(), aliases.get(value.toLowerCase()) ?? value);
  return true;
}

/** The command's words with its program spelt as the alias it is called by names, when the text set one; the words as they are otherwise. */
export function withAliases(all: string[], aliases: ReadonlyMap<string, string>): string[] {
  if (aliases.size === 0) return all;
  const at = programAt(all);
  const program = aliases.get((all[at] ?? '').toLowerCase());
  return program === undefined ? all : [...all.slice(0, at), program, ...all.slice(at + 1)];
}

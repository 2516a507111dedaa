import { closingParen } from './powershell-text';
import { type Bindings, parameterList, pathBindings } from './windows-blocks';

/**
 * PowerShell functions (and filters, and script blocks saved to a variable) that a text defines, for the
 * never-run rule's Windows reader (windows-tree.ts): `function f($p) { … }`, `function f { param($p) … }`,
 * `filter f { … }`, `$sb = { … }`. A call (`f C:\`, `gci C:\ | f`, `& $sb C:\`) is read as the body run
 * with what the call gives it: its parameters, `$args`, and `$_`, `$input` and the parameters not given
 * for each item piped in.
 */

/** A function's body and its parameters in order (lower case), with whether each is a switch, which takes no value. */
export interface PsFunction {
  body: string;
  parameters: ReadonlyArray<{ name: string; switch: boolean }>;
  /**
   * The definition this one replaced: a definition in a child scope (`& { function f … }`, a function's
   * body) replaces it only there, so a call may run either.
   */
  previous?: PsFunction;
}

/** `function f(…)`, `filter f`, with a scope (`global:f`) or not: 1 the name, 2 what its parentheses hold. */
const FUNCTION_HEADER = /^\s*(?:function|filter)\s+(?:(?:global|script|local|private):)?([^\s(){}$]+)\s*(?:\(([\s\S]*)\))?\s*$/i;
/** `$sb = ` before a block: 1 or 2 the variable's name; `${function:f} = ` (or `$function:f = `) defines the function f. */
const BLOCK_ASSIGNMENT = /^\s*\$(?:\{([^{}]{1,200})\}|((?:function:)?[a-z_]\w{0,200}))\s*=\s*$/i;
/** `Set-Item function:f`, `New-Item -Path function:\f -Value` before a block: 1 the function's name. */
const FUNCTION_ITEM = /^\s*(?:set-item|new-item|si|ni)\s+(?:-path\s+)?(?:microsoft\.powershell\.core\\)?function:\\?([^\s(){}$]+)\s+(?:-value\s+)?$/i;

/**
 * The function the command before a block's `{` defines with that block, by the lower-case name a call
 * uses (`f`; `$sb` for a block saved to a variable), or null when it defines none.
 */
export function definedFunction(raw: string, body: string): { name: string; definition: PsFunction } | null {
  const header = FUNCTION_HEADER.exec(raw);
  if (header) {
    const declared = header[2] !== undefined ? header[2] : parameterList(body);
    return { name: (header[1] ?? '').toLowerCase(), definition: { body, parameters: parameters(declared) } };
  }
  const definition = { body, parameters: parameters(parameterList(body)) };
  const item = FUNCTION_ITEM.exec(raw);
  if (item) return { name: (item[1] ?? '').toLowerCase(), definition };
  const assigned = BLOCK_ASSIGNMENT.exec(raw);
  if (!assigned) return null;
  const name = (assigned[1] ?? assigned[2] ?? '').toLowerCase();
  return { name: name.startsWith('function:') ? name.slice('function:'.length) : `$${name}`, definition };
}

/**
 * The parameters a declaration list names (`[Parameter(Mandatory=$true)][string]$p = 'x', [switch]$f`):
 * each item's first variable outside its attributes' brackets, in order.
 */
function parameters(declared: string): Array<{ name: string; switch: boolean }> {
  const found: Array<{ name: string; switch: boolean }> = [];
  let brackets = 0;
  let item = '';
  let named: string | null = null;
  const end = () => {
    if (named !== null) found.push({ name: named, switch: /\[\s*switch\s*\]/i.test(item) });
    item = '';
    named = null;
  };
  for (let i = 0; i < declared.length; i++) {
    const char = declared[i] as string;
    if (char === '(') {
      // A group in an attribute or a default value: its commas are not the list's.
      const close = closingParen(declared, i + 1);
      item += declared.slice(i, close + 1);
      i = close;
      continue;
    }
    if (char === '[') brackets++;
    else if (char === ']') brackets = Math.max(0, brackets - 1);
    else if (char === ',' && brackets === 0) {
      end();
      continue;
    } else if (char === '$' && brackets === 0 && named === null) {
      const name = /^\$([a-z_]\w{0,200})/i.exec(declared.slice(i, i + 202));
      if (name) named = (name[1] ?? '').toLowerCase();
    }
    item += char;
  }
  end();
  return found;
}

/**
 * The variables a call gives the body: its parameters given the named (`-Path C:\`, `-p:C:\`) and then
 * the positional values, `$args[i]` the values left and `$args` the one of them `pick` picks; when an
 * item is piped in (`piped`), `$_`, `$PSItem`, `$input` and each parameter not given are that item, as
 * one may take it from the pipeline.
 */
export function callBindings(definition: PsFunction, args: readonly string[], piped: string | null, pick: (values: readonly string[]) => string): Bindings {
  const bindings: Bindings = new Map();
  const given = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    const named = /^-([a-z_][\w-]*)(?::([\s\S]*))?$/i.exec(word);
    const parameter = named ? parameterNamed(definition, (named[1] ?? '').toLowerCase()) : undefined;
    if (parameter === undefined) {
      positional.push(word);
      continue;
    }
    given.add(parameter.name);
    const value = named?.[2] !== undefined ? named[2] : parameter.switch ? undefined : args[++i];
    if (value !== undefined && !parameter.switch) setPath(bindings, parameter.name, value);
  }
  // A `-Name` no parameter has may be an alias of one (`[Alias('Path')]`): the value after it is still given to one.
  const open = definition.parameters.filter((parameter) => !parameter.switch && !given.has(parameter.name));
  const rest: string[] = [];
  for (const value of positional) {
    const parameter = /^-[a-z]/i.test(value) ? undefined : open.shift();
    if (parameter === undefined) rest.push(value);
    else {
      given.add(parameter.name);
      setPath(bindings, parameter.name, value);
    }
  }
  rest.forEach((value, at) => bindings.set(`args[${at}]`, value));
  if (piped !== null) {
    for (const name of ['_', 'psitem', 'input']) setPath(bindings, name, piped);
    for (const parameter of definition.parameters) if (!given.has(parameter.name)) setPath(bindings, parameter.name, piped);
  }
  // `$args` alone is all the values left: the one a command takes may be any of them.
  if (rest.length > 0) bindings.set('args', pick(rest));
  return bindings;
}

/** The parameter a `-name` names: the one of that name, or the only one it starts; undefined when none (or several). */
function parameterNamed(definition: PsFunction, name: string): PsFunction['parameters'][number] | undefined {
  const exact = definition.parameters.find((parameter) => parameter.name === name);
  if (exact !== undefined) return exact;
  const starting = definition.parameters.filter((parameter) => parameter.name.startsWith(name));
  return starting.length === 1 ? starting[0] : undefined;
}

function setPath(bindings: Bindings, name: string, value: string): void {
  for (const [key, path] of pathBindings([name], value)) bindings.set(key, path);
}

/** `Invoke-Command [-ScriptBlock] $sb -ArgumentList …`: the block's variable and the values it is given, as a call's words; null for another. */
export function invokedBlock(args: readonly string[], defined: (name: string) => boolean): string[] | null {
  const block = args.find((word) => word.startsWith('$') && defined(word.toLowerCase()));
  if (block === undefined) return null;
  const list = args.findIndex((word) => /^-arg/i.test(word) && ['-argumentlist', '-args'].some((name) => name.startsWith(word.toLowerCase())));
  const rest = list === -1 ? [] : args.slice(list + 1);
  const end = rest.findIndex((word) => /^-[a-z]/i.test(word));
  return [block, ...(end === -1 ? rest : rest.slice(0, end))];
}

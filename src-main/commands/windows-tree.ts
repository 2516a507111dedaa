import { homedir } from 'node:os';
import { type Mode, type Pipeline, splitText, words } from './powershell-text';
import { assignCollected, assignedName, assignHashtable, assignInPlace, assignValue, cmdSet, setVariableCommand } from './windows-assign';
import { recordAlias, withAliases } from './windows-aliases';
import { type BlockReader, blockRuns, pathBindings } from './windows-blocks';
import { continuedHeader, deletesEach, passes, programAt, programOf, readRemove, runsText, savedVariable, source } from './windows-commands';
import { callBindings, definedFunction, invokedBlock, type PsFunction } from './windows-functions';
import { memberChain } from './windows-members';
import { type MethodCall, methodCalls } from './windows-methods';
import { knownVariables, type PathScope, resolvePath, takesWhole } from './windows-paths';
import { startedCommands } from './windows-start';
import { knownGroupValue, type ValueReader } from './windows-values';

/**
 * The never-run rule (whole-tree.ts) for commands the Windows device runs: PowerShell text, as
 * `powershell.exe -Command` gets it, and cmd text inside it (`cmd /c "…"`). A whole tree is a drive
 * root (`C:\`, `C:`, `\`), a top-level system folder (Windows, Program Files, Program Files (x86),
 * ProgramData, Users) or a user's home (`~`, `$HOME`, `$env:USERPROFILE`, `%USERPROFILE%`,
 * `C:\Users\<name>`), in any case, with either slash, trailing slashes and `\*` globs.
 *
 * Read: Remove-Item and its aliases with -Recurse (or any start of it, `-r`), `/s` of cmd's rd, rmdir,
 * del and erase, `takeown /r`, `icacls … /t` that resets, grants, denies, removes or sets the owner,
 * `Get-ChildItem <tree> | Remove-Item` (or Get-Item), a path piped alone into Remove-Item, PowerShell's quotes (backtick is the escape, backslash a path
 * separator), here-strings and a string alone in parentheses (`iex('…')`), `;`, `&&`, `||`, `&`, `|`, lines and script blocks between commands, a literal
 * `$name = 'value'` (or here-string) set earlier in the text, `Set-Location`/`cd` to a literal folder (relative
 * targets are read from the folder the command runs in), and the text of `powershell`/`pwsh -Command`,
 * `-EncodedCommand` (base64 UTF-16LE), `cmd /c`, `Invoke-Expression '…'` and `$(…)`, and the command
 * Start-Process or cmd's start runs (windows-start.ts). A script block is read again with what it is
 * given (windows-blocks.ts): `$_` as each item a listing (or a value) pipes into ForEach-Object or
 * Where-Object, a foreach statement's variable as each value, a block's parameters and `$args` as the
 * arguments of `& { … }` or Invoke-Command. What a listing writes is read as every item it lists past
 * filters that may keep them all (Where-Object, Sort-Object, Select-Object, a ForEach-Object that may
 * write their paths), saved to a variable (`$d = gci C:\`) or written by a function. Functions, filters
 * and blocks saved to a variable are read where they are called, with what the call gives them
 * (windows-functions.ts), and aliases as what they name (windows-aliases.ts); text made into a script
 * block, `.Delete($true)`, `[IO.Directory]::Delete`, `.ForEach({ … })` and `$sb.Invoke(…)` are read
 * too (windows-methods.ts).
 * Values (windows-assign.ts, windows-values.ts): `$d = …` with a cast, chained or `+=`, Set-Variable,
 * cmd's `set`, arrays read as the item that takes a whole tree, hashtables splatted (`@p`), what a loop,
 * `& { … }` or a pipeline's block collects (`$d = foreach (…) { … }`), and a group's value where it is known (Get-Location, Join-Path,
 * Split-Path, Combine, a listing); a group's commands are read before the command around it, in its scope.
 * Members of a known value (`.Parent`, `.FullName`, `.Replace(…)`, `.Trim()`, `-replace` of plain text) are
 * computed where their arguments are known, and a cut they cannot compute is read as possibly leaving a folder the
 * path is in (windows-members.ts); a DirectoryInfo made by New-Object or `::new` is its folder.
 * Not read: values computed when it runs (`Remove-Item (Get-Content list.txt) -Recurse`, other string methods),
 * a hashtable or array changed other than by `$p.Key = …`, `$a[0] = …` or `.Add(…)`, scripts in files (`-File x.ps1`), other .NET methods and other
 * providers (`HKLM:\`). It is a last guard against mistakes, not a full PowerShell parser.
 */

/** Text nested deeper than this (`powershell -c "cmd /c '…'"` is two levels) is not read. */
const MAX_NESTING = 4;

const REMOVERS = new Set(['remove-item', 'rm', 'ri', 'del', 'erase', 'rd', 'rmdir']);
/** Programs whose output, piped into Remove-Item, names what it removes: a folder's items, or the folder itself. */
const LISTERS = new Set(['get-childitem', 'gci', 'ls', 'dir', 'get-item', 'gi']);
/** The listers among them that write the items they are given, not those in them. */
const ITEM_LISTERS = new Set(['get-item', 'gi']);
const LOCATION_SETTERS = new Set(['cd', 'chdir', 'sl', 'set-location', 'pushd', 'push-location']);
const LOCATION_RESTORERS = new Set(['popd', 'pop-location']);
/** icacls operations that change a tree's access list or owner; with /t they walk all of it. */
const ICACLS_CHANGES = /^\/(?:reset|grant|deny|remove|setowner)(?::\w*)?$/i;

/** What the reader knows of the machine and of the text read so far. */
interface Context extends PathScope {
  /** Variables by lower-case name (`home`, `env:userprofile`), with the values they hold. */
  variables: Map<string, string>;
  /** Characters the script blocks read again for each run (a loop's items, a block's arguments) may still take, shared by all the text. */
  budget: { left: number };
  /** The functions (and script blocks saved to a variable, as `$name`) the text has defined so far, by lower-case name, shared by all the text. */
  functions: Map<string, PsFunction>;
  /** The aliases the text has set so far (windows-aliases.ts), shared by all the text. */
  aliases: Map<string, string[]>;
  /** The calls being read, outermost first, each as its function's name and what it was given. */
  calls: readonly string[];
  /** The value of a group's text, when known (windows-values.ts). */
  evaluate(inner: string, scope: Context): string | null;
  /** Of several values, the one that takes a whole tree, if any (the first otherwise). */
  pick(values: readonly string[], scope: Context): string;
}

/**
 * A block's body is read again for each item, value or set of arguments it runs with: together they may
 * read this many characters, and this many more for each of the text's, before the text is refused as
 * one that cannot be read in time. Each reading costs REREAD_EACH more, whatever its length.
 */
const REREAD_FLOOR = 100_000;
const REREAD_PER_CHARACTER = 4;
const REREAD_EACH = 16;

/**
 * The first command in PowerShell `text` that removes, recursively takes over or re-permissions a
 * whole tree, as `program operand` (for the reason shown), or null. `cwd`: the folder the text runs
 * in (absolute, or from home), or null when that is not known.
 */
export function windowsTreeCommand(text: string, home = homedir(), cwd: string | null = null): string | null {
  const context = contextFor(home, cwd, knownVariables(home));
  context.budget.left = REREAD_FLOOR + REREAD_PER_CHARACTER * text.length;
  return treeCommandInText(text, 'powershell', context, 0);
}

/** Whether removing `path` recursively takes a drive root, a top-level system folder or a home with it; `cwd` as for windowsTreeCommand. */
export function isWindowsWholeTree(path: string, home = homedir(), cwd: string | null = null): boolean {
  return takesWhole(path, contextFor(home, cwd, new Map()));
}

/** A context whose folder is `cwd`, read from home when relative. */
function contextFor(home: string, cwd: string | null, variables: Map<string, string>): Context {
  const context: Context = { home, cwd: null, variables, budget: { left: 0 }, functions: new Map(), aliases: new Map(), calls: [], evaluate: groupValue, pick: (values, scope) => pickWhole(scope)(values) };
  context.cwd = cwd === null ? null : resolvePath(cwd, context, '~');
  return context;
}

function treeCommandInText(text: string, mode: Mode, context: Context, depth: number): string | null {
  const { pipelines } = splitText(text, mode);
  const headers = new Map<Pipeline, { header: string[][]; blocks: number }>();
  /** The last command of the pipeline before, when no block ended it: a function's header whose `{` is on the next line. */
  let lineBefore = '';
  /** The variable each pipeline (through blocks piped on, `$d = … | ? { … } | % { … }`) assigns what it writes to, if any. */
  const collects = new Map<Pipeline, string | null>();
  for (const pipeline of pipelines) {
    const assigns = mode === 'powershell' && pipeline.commands.length > 1 ? assignedName(pipeline.commands[0] as string) : null;
    const collecting = pipeline.piped ? (collects.get(pipeline.continues as Pipeline) ?? null) : assigns;
    collects.set(pipeline, collecting);
    const commands: string[][] = [];
    const before = headers.get(pipeline.continues as Pipeline);
    // The command whose output the next one is given, past the filters between them.
    let feeder = before !== undefined && pipeline.piped ? source(before.header)[0] : undefined;
    for (const raw of pipeline.commands) {
      const grouped = mode === 'powershell' ? groupsTree(raw, context, depth) : null;
      if (grouped) return grouped;
      // A method may be called in an assignment's value too (`$sb = [scriptblock]::Create('…')`).
      const method = mode === 'powershell' ? methodTree(raw, context, depth) : null;
      if (method) return method;
      // What follows an assignment is read as any command (`$d = gci C:\ | ri -r`, `$x = f C:\`).
      const command = mode === 'powershell' && !assignInPlace(raw, context.variables, valueReader(context)) ? (assignValue(raw, context.variables, valueReader(context)) ?? raw) : raw;
      const spelt = words(command, mode, context);
      const readings = mode === 'powershell' ? withAliases(spelt, context.aliases) : [spelt];
      if (readings === null) return `${spelt[programAt(spelt)] ?? 'alias'} (aliases nested too deep to be read)`;
      const all = readings[0] as string[];
      // An alias set again (maybe only in a child scope) may name any command it was set to: those are read first.
      for (const other of readings.slice(1)) {
        const found = commandTree(other, mode, context, depth) ?? (context.functions.size > 0 ? callTree(other, feeder, context, depth) : null);
        if (found) return found;
      }
      if (mode === 'powershell' && !recordAlias(all, context.aliases)) setVariableCommand(all, context.variables, valueReader(context));
      commands.push(all);
      const found =
        commandTree(all, mode, context, depth) ??
        (mode === 'powershell' && context.functions.size > 0 ? callTree(all, feeder, context, depth) : null);
      if (found) return found;
      if (mode === 'powershell') saveListing(all, feeder, context);
      if (!passes(all)) feeder = all;
    }
    const continues = before !== undefined && before.blocks < MAX_CONTINUED;
    let header = continues ? continuedHeader(before.header, commands) : [...commands];
    // `… | ? { … } | ri -r`: the commands go on in the pipeline of the block's command, after what it was given.
    if (before !== undefined && pipeline.piped) header = [...source(before.header), ...commands];
    headers.set(pipeline, { header, blocks: continues && !pipeline.piped ? before.blocks + 1 : 0 });
    const piped = mode === 'powershell' ? pipedTree(pipeline.piped ? header : commands, context) : null;
    if (piped) return piped;
    const owner = pipeline.commands.length === 0 ? lineBefore : (pipeline.commands.at(-1) as string);
    lineBefore = pipeline.block === null ? (pipeline.commands.at(-1) ?? '') : '';
    if (pipeline.block === null) continue;
    const defined = mode === 'powershell' ? definedFunction(owner, pipeline.block) : null;
    if (defined !== null) {
      const previous = context.functions.get(defined.name);
      const same = previous !== undefined && previous.body === defined.definition.body;
      if (!same) context.functions.set(defined.name, previous === undefined ? defined.definition : { ...defined.definition, previous });
    }
    const hashtable = mode === 'powershell' && assignHashtable(owner, pipeline.block, context.variables, valueReader(context));
    const block = blockTree(header, pipeline.block, pipeline.after, context, depth);
    if (block) return block;
    if (mode === 'powershell' && !hashtable && defined === null) collectBlock(owner, collecting, header, pipeline, context);
  }
  return null;
}

/**
 * The text of the groups in a raw command (`$(…)`, `@(…)`, `(…)`, and `$(…)` in a `@"…"@`), read before
 * the command, as PowerShell runs them: in the same scope, so a `cd` or a variable set there holds after it.
 */
function groupsTree(raw: string, context: Context, depth: number): string | null {
  if (depth >= MAX_NESTING || !/[(]/.test(raw)) return null;
  for (const inner of splitText(raw, 'powershell').nested) {
    const found = treeCommandInText(inner, 'powershell', context, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * The .NET methods a raw command calls (windows-methods.ts): the text a script block is made of, read as
 * the command it holds, and a folder deleted with all it holds (`(Get-Item ~).Delete($true)`,
 * `$_.Delete($true)`, `[IO.Directory]::Delete('C:\', $true)`).
 */
function methodTree(raw: string, context: Context, depth: number): string | null {
  for (const call of methodCalls(raw)) {
    if (call.kind === 'script') {
      if (depth >= MAX_NESTING) continue;
      const text = words(call.argument, 'powershell', context).join(' ');
      const found = treeCommandInText(text, 'powershell', { ...context, variables: new Map(context.variables) }, depth + 1);
      if (found) return found;
      continue;
    }
    if (call.kind === 'invoke') {
      const found = callTree([`$${call.variable}`, ...words(call.argument, 'powershell', context)], undefined, context, depth);
      if (found) return found;
      continue;
    }
    const path = receivedPath(call, context);
    if (path === null) continue;
    if (call.kind === 'delete' && takesWhole(path, context)) return `Delete ${path}`;
    if (call.kind !== 'each' || depth >= MAX_NESTING) continue;
    if (!spend(call.body.length + REREAD_EACH + context.variables.size, context)) return '.ForEach({ … }) (run too often to be read)';
    const variables = new Map([...context.variables, ...pathBindings(['_', 'psitem'], path)]);
    const found = treeCommandInText(call.body, 'powershell', { ...context, variables }, depth + 1);
    if (found) return found;
  }
  return null;
}

/** The path a method is called on or given: a variable's value, what a group lists or holds (after a cast), or its argument's value. */
function receivedPath(call: MethodCall & { kind: 'delete' | 'each' }, context: Context): string | null {
  if (call.variable !== undefined) {
    // An item of a listing saved to a variable (`$items[0]`, `$items[-1]`) may be any of them: `items[*]`.
    const item = /^([^[]+)\[-?\d+\]$/.exec(call.variable)?.[1];
    const known = context.variables.get(call.variable) ?? (item === undefined ? undefined : context.variables.get(`${item}[*]`));
    if (known !== undefined || !/[.[]/.test(call.variable)) return known ?? null;
    // Members read from a known variable (`$d.Parent`): the variable read as a word.
    const [word] = words(`\${${call.variable.replace(/[.[].*$/s, '')}}${call.variable.replace(/^[^.[]*/, '')}`, 'powershell', context);
    return word === undefined || word.startsWith('$') ? null : word;
  }
  if (call.group === undefined) return call.kind === 'delete' ? (words(call.path ?? '', 'powershell', context)[0] ?? null) : null;
  const all = words(call.group.replace(/^\s*\[[^\]]*\]\s*/, ''), 'powershell', context);
  // What a listing lists, a value alone, or the value of what the group holds (`(New-Object IO.DirectoryInfo C:\)`).
  const path = listedItems(all, context) ?? (all.length === 1 ? (all[0] as string) : null) ?? context.evaluate(call.group, context);
  if (path === null || call.members === undefined) return path;
  // Properties read from it (`(Get-Item ~\x).Parent`): known ones give the path, another makes it not known.
  const read = memberChain(path, call.members, 0, { argument: (text) => context.evaluate(text, context), pick: pickWhole(context) });
  return read.length === call.members.length ? read.value : null;
}

/** Calls read inside calls deeper than this are refused, as a text that cannot be read in time. */
const MAX_CALLS = 64;

/**
 * A call of a function the text defined (`f C:\`, `gci C:\ | f`, `& $sb C:\`): its body read with what the
 * call gives it (windows-functions.ts), from the budget. A call the reading is already inside, given the
 * same, is not read again: it would find the same.
 */
function callTree(all: readonly string[], feeder: readonly string[] | undefined, context: Context, depth: number): string | null {
  const at = programAt(all);
  // Invoke-Command of a block saved to a variable is a call of it.
  const invoked = ['invoke-command', 'icm'].includes(programOf(all[at] ?? '')) ? invokedBlock(all.slice(at + 1), (word) => context.functions.has(word)) : null;
  if (invoked !== null) return callTree(invoked, feeder, context, depth);
  const name = (all[at] ?? '').toLowerCase();
  const latest = context.functions.get(name.startsWith('$') ? name : programOf(name));
  if (latest === undefined) return null;
  const piped = feeder === undefined ? null : (listedItems(feeder, context) ?? (feeder.length === 1 ? (feeder[0] as string) : null));
  // Each definition the name has had may be the one run (see PsFunction.previous).
  let definitions = 0;
  for (let definition: PsFunction | undefined = latest; definition !== undefined; definition = definition.previous) {
    if (++definitions > MAX_CALLS) return `${all[at]} (defined too many times to be read)`;
    const bindings = callBindings(definition, all.slice(at + 1), piped, pickWhole(context));
    const call = [name, definitions, ...[...bindings].flat()].join('\0');
    if (context.calls.includes(call)) continue;
    if (context.calls.length >= MAX_CALLS) return `${all[at]} (calls nested too deep to be read)`;
    // The body sees the caller's variables: copying them is paid for too.
    if (!spend(definition.body.length + REREAD_EACH + context.variables.size + bindings.size, context)) return `${all[at]} (run too often to be read)`;
    const variables = new Map(context.variables);
    for (const [key, value] of bindings) variables.set(key, value);
    const found = treeCommandInText(definition.body, 'powershell', { ...context, variables, calls: [...context.calls, call] }, depth);
    if (found) return found;
  }
  return null;
}

/** Picks of several values one that takes a whole tree, if any: the one a command given any of them is read with. */
function pickWhole(context: Context): (values: readonly string[]) => string {
  return (values) => values.find((value) => takesWhole(value, context)) ?? (values[0] as string);
}

/**
 * A command goes on past this many blocks of its own (ForEach-Object's -Begin, -Process and -End): one
 * that goes on further (`if { } elseif { } …`) is read from its last block on, so that its header stays short.
 */
const MAX_CONTINUED = 3;

/**
 * A script block's body read again with what each of its runs is given (windows-blocks.ts): its body is
 * read as it is among the text's other commands, where `$_` or a parameter is not known. Each reading,
 * and the look for what the body uses, takes from the budget; past it the text is refused.
 */
function blockTree(header: readonly string[][], body: string, after: string, context: Context, depth: number): string | null {
  if (depth >= MAX_NESTING) return null;
  const runs = blockRuns(header, body, words(after, 'powershell', context), blockReader(context));
  if (runs.length === 0) return null;
  const tooOften = `${header.at(-1)?.join(' ') || '&'} { … } (run too often to be read)`;
  if (!spend(body.length + REREAD_EACH, context)) return tooOften;
  const used = usedNames(body, runs);
  for (const variables of runs) {
    // A body that uses none of what it is given reads as it did among the text's commands.
    if (![...variables.keys()].some((key) => used.has(nameOf(key)))) continue;
    if (!spend(body.length + REREAD_EACH, context)) return tooOften;
    const found = treeCommandInText(body, 'powershell', { ...context, variables: new Map([...context.variables, ...variables]) }, depth + 1);
    if (found) return found;
  }
  return null;
}

/** How windows-blocks.ts reads a block's header in this context. */
function blockReader(context: Context): BlockReader {
  return {
    program: (command) => {
      const at = programAt(command);
      return at >= command.length ? (command.at(-1) ?? '') : programOf(command[at] as string);
    },
    args: (command) => command.slice(programAt(command) + 1),
    listed: (command) => listedItems(command, context),
    passes,
    words: (text) => words(text, 'powershell', context),
  };
}

/** The names of the variables given to the runs that `body` uses (as `$name` or `${name}`), each looked for once. */
function usedNames(body: string, runs: readonly Map<string, string>[]): Set<string> {
  const lower = body.toLowerCase();
  const names = new Set(runs.flatMap((variables) => [...variables.keys()].map(nameOf)));
  return new Set([...names].filter((name) => lower.includes(`$${name}`) || lower.includes(`\${${name}}`)));
}

/** The variable a binding's key names: `_.fullname` is `_`, `args[0]` is `args`. */
function nameOf(key: string): string {
  return key.split(/[.[]/)[0] ?? key;
}

/** Takes `cost` from the budget; false, taking nothing, when too little is left. */
function spend(cost: number, context: Context): boolean {
  if (cost > context.budget.left) return false;
  context.budget.left -= cost;
  return true;
}

/** In one command's words: a whole tree it removes or re-permissions, or one in the text it runs. */
function commandTree(all: readonly string[], mode: Mode, context: Context, depth: number): string | null {
  const at = programAt(all);
  const program = programOf(all[at] ?? '');
  const args = all.slice(at + 1);
  if (LOCATION_SETTERS.has(program)) {
    // A bare cd prints the folder in cmd; in PowerShell it depends on the version.
    const target = args.find((word) => !/^[-/]/.test(word));
    if (target !== undefined) context.cwd = resolvePath(target, context, null);
    else if (mode === 'powershell') context.cwd = null;
    return null;
  }
  if (mode === 'cmd' && program === 'set') {
    cmdSet(args, context.variables);
    return null;
  }
  if (LOCATION_RESTORERS.has(program)) {
    context.cwd = null;
    return null;
  }
  if (REMOVERS.has(program)) {
    const { recursive, keeps, operands } = readRemove(args);
    // A listing in parentheses (`-Path (gci C:\)`) is each item it lists.
    const values = operands.map((operand) => (/^[$@]?\(/.test(operand) ? (listedItems([operand], context) ?? operand) : operand));
    const target = recursive && !keeps ? values.find((operand) => takesWhole(operand, context)) : undefined;
    return target === undefined ? null : `${all[at]} ${target}`;
  }
  if (program === 'takeown') {
    const file = args.findIndex((word) => word.toLowerCase() === '/f');
    const target = args[file + 1];
    const found = file !== -1 && target !== undefined && args.some((word) => word.toLowerCase() === '/r') && takesWhole(target, context);
    return found ? `${all[at]} ${target}` : null;
  }
  if (program === 'icacls') {
    const target = args[0];
    const walks = args.some((word) => word.toLowerCase() === '/t') && args.some((word) => ICACLS_CHANGES.test(word));
    return walks && target !== undefined && takesWhole(target, context) ? `${all[at]} ${target}` : null;
  }
  if (depth >= MAX_NESTING) return null;
  for (const { words: started, folder } of startedCommands(program, args, mode === 'cmd')) {
    const cwd = folder === null ? context.cwd : resolvePath(folder, context, null);
    const found = commandTree(started, 'cmd', { ...context, cwd, variables: new Map(context.variables) }, depth + 1);
    if (found) return found;
  }
  const inner = runsText(program, args);
  return inner === null ? null : treeCommandInText(inner.text, inner.mode, { ...context, variables: new Map(context.variables) }, depth + 1);
}

/**
 * `Get-ChildItem <tree> | Remove-Item` (or `Get-Item <tree> |`): the listing of a whole tree piped (maybe through filters, `| ? … |`) into a Remove-Item
 * of no path of its own, when either recurses and neither selects (-Filter, -Include, -Exclude); or a
 * value alone piped into one that recurses (`'C:\' | Remove-Item -Recurse`, `$_ | ri -r`), which removes the path it holds.
 */
function pipedTree(commands: readonly string[][], context: Context): string | null {
  for (let j = 1; j < commands.length; j++) {
    const remover = commands[j] as string[];
    const removeAt = programAt(remover);
    const deleted = memberDelete(remover, commands, j, context);
    if (deleted) return deleted;
    if (!REMOVERS.has(programOf(remover[removeAt] ?? ''))) continue;
    // What filters pass on may be every item they are given.
    const lister = source(commands, j)[0];
    if (lister === undefined) continue;
    const listAt = programAt(lister);
    const removed = readRemove(remover.slice(removeAt + 1));
    if (removed.keeps || removed.operands.length > 0) continue;
    // A value alone, or a listing in parentheses (`(gci C:\) | ri -r`).
    const value = lister.length === 1 && !LISTERS.has(programOf(lister[0] as string)) ? (listedItems(lister, context) ?? (lister[0] as string)) : null;
    if (value !== null && removed.recursive && takesWhole(value, context)) return `${value} | ${remover[removeAt]}`;
    // What a function the text defined lists.
    const listing = context.functions.has(programOf(lister[listAt] ?? '')) ? listedItems(lister, context) : null;
    if (listing !== null && removed.recursive && takesWhole(listing, context)) return `${lister[listAt]} ${listing} | ${remover[removeAt]}`;
    if (!LISTERS.has(programOf(lister[listAt] ?? ''))) continue;
    const listed = readRemove(lister.slice(listAt + 1));
    // Get-ChildItem's second positional operand is its -Filter.
    if (listed.keeps || listed.operands.length > 1 || !(listed.recursive || removed.recursive)) continue;
    const target = (listed.operands.length > 0 ? listed.operands : ['.']).find((operand) => takesWhole(operand, context));
    if (target !== undefined) return `${lister[listAt]} ${target} | ${remover[removeAt]}`;
  }
  return null;
}

/** `… | ForEach-Object Delete $true` (or `-MemberName Delete -ArgumentList $true`): each item piped in deleted with all it holds. */
function memberDelete(command: readonly string[], commands: readonly string[][], at: number, context: Context): string | null {
  const memberAt = programAt(command);
  if (!['foreach-object', '%'].includes(programOf(command[memberAt] ?? ''))) return null;
  if (!deletesEach(command.slice(memberAt + 1))) return null;
  const lister = source(commands, at)[0];
  const item = lister === undefined ? null : (listedItems(lister, context) ?? (lister.length === 1 ? (lister[0] as string) : null));
  return item !== null && takesWhole(item, context) ? `Delete ${item}` : null;
}

/** `-OutVariable t` of a listing, or `Tee-Object -Variable t` after one (`feeder`): records t as each item it lists. */
function saveListing(all: readonly string[], feeder: readonly string[] | undefined, context: Context): void {
  const saved = savedVariable(all);
  if (saved === null) return;
  const listed = saved.tee ? (feeder === undefined ? null : listedItems(feeder, context)) : listedItems(all, context);
  if (listed !== null) setListing(saved.name, listed, context);
}

/** Records a variable as holding the items of a listing (`listed`, their paths): itself, their paths' properties and each of them (`[*]`). */
function setListing(name: string, listed: string, context: Context): void {
  for (const property of ['', '.fullname', '.pspath', '[*]']) context.variables.set(`${name}${property}`, listed);
}

/** `$d = foreach (…) { … }`, `$d = … | % { … }`: the variable is what the block may write (windows-assign.ts), as each value or item it runs with, too. */
function collectBlock(owner: string, collecting: string | null, header: readonly string[][], pipeline: Pipeline, context: Context): void {
  if (pipeline.block === null || (collecting === null && assignedName(owner) === null)) return;
  const runs = blockRuns(header, pipeline.block, words(pipeline.after, 'powershell', context), blockReader(context));
  assignCollected(owner, collecting, pipeline.block, runs.flatMap((variables) => [...variables.values()]), context.variables, valueReader(context));
}

/** The value of a group's text (`(Join-Path C:\ *)`, `$(gci C:\)`), when known (windows-values.ts). */
function groupValue(inner: string, context: Context): string | null {
  return knownGroupValue(inner, valueReader(context));
}

/** How windows-values.ts reads values in this context. */
function valueReader(context: Context): ValueReader {
  return { words: (text) => words(text, 'powershell', context), listed: (command) => listedItems(command, context), cwd: context.cwd, pick: pickWhole(context) };
}

/** Function calls read for what they list, one inside another, deeper than this are not read. */
const MAX_LISTING_CALLS = 8;

/**
 * The path of each item a listing command writes, as a glob: `<folder>\*` for Get-ChildItem (gci, ls,
 * dir) of one folder, the path it is given for Get-Item, what a function the text defined lists
 * (functionListing); null for another command or one that selects.
 */
function listedItems(command: readonly string[], context: Context, calls = 0): string | null {
  // A listing in parentheses (`(gci C:\)`, `@(…)`) lists what it does.
  const group = command.length === 1 ? /^[$@]?\(([\s\S]*)\)$/.exec(command[0] as string) : null;
  if (group !== null && calls < MAX_LISTING_CALLS) return listedItems(words(group[1] ?? '', 'powershell', context), context, calls + 1);
  const at = programAt(command);
  const program = programOf(command[at] ?? '');
  const definition = context.functions.get(program);
  if (definition !== undefined && calls < MAX_LISTING_CALLS) return functionListing(definition, command.slice(at + 1), context, calls + 1);
  if (!LISTERS.has(program)) return null;
  const listed = readRemove(command.slice(at + 1));
  // Get-ChildItem's second positional operand is its -Filter.
  if (listed.keeps || listed.operands.length > 1) return null;
  const operand = listed.operands[0] ?? '.';
  return ITEM_LISTERS.has(program) ? operand : `${operand.replace(/[\\/]+$/, "")}\\*`;
}

/**
 * What a call of a function lists (`function g { gci C:\ }; g | ri -r`): the items of the first of its
 * body's pipelines that starts with a listing (after `return` or not) and only filters it after; null when
 * none does. Each reading takes from the budget: past it, what it lists is not known, and may be all of
 * the drive (`\*`).
 */
function functionListing(definition: PsFunction, args: readonly string[], context: Context, calls: number): string | null {
  const known = listings.get(definition) ?? new Map<string, string | null>();
  listings.set(definition, known);
  const key = args.join('\0');
  const found = known.get(key);
  if (found !== undefined) return found;
  const listed = readListing(definition, args, context, calls);
  known.set(key, listed);
  return listed;
}

/** What each function lists, by the words it is called with: a call read once is not paid for again. */
const listings = new WeakMap<PsFunction, Map<string, string | null>>();

function readListing(definition: PsFunction, args: readonly string[], context: Context, calls: number): string | null {
  const bindings = callBindings(definition, args, null, pickWhole(context));
  if (!spend(definition.body.length + REREAD_EACH + context.variables.size, context)) return '\\*';
  const inner: Context = { ...context, variables: new Map([...context.variables, ...bindings]) };
  for (const pipeline of splitText(definition.body, 'powershell').pipelines) {
    const [first, ...rest] = pipeline.commands.map((raw) => words(raw, 'powershell', inner));
    if (first === undefined || !rest.every(passes)) continue;
    const written = first[0]?.toLowerCase() === 'return' ? first.slice(1) : first;
    // A value (`return (gci C:\)`, `'C:\'`) is what it writes.
    const value = written.length === 1 && /^\s*(?:return\s+)?[($@'"]/i.test(pipeline.commands[0] ?? '') ? (written[0] as string) : null;
    const listed = listedItems(written, inner, calls) ?? value;
    if (listed !== null) return listed;
  }
  return null;
}

import { closingParen, topLevelItems } from './powershell-text';

/**
 * .NET methods a PowerShell command calls that the never-run rule's Windows reader (windows-tree.ts)
 * reads: text made into a script block (`[scriptblock]::Create('…')`,
 * `$ExecutionContext.InvokeCommand.NewScriptBlock('…')` or `.InvokeScript('…')`), read as the command it
 * holds whether it is run or not; a folder deleted with all it holds (`.Delete($true)` of an item,
 * `[IO.Directory]::Delete('C:\', $true)`, VisualBasic's `FileSystem::DeleteDirectory`); the block
 * `.ForEach({ … })` runs with each item; and a block saved to a variable run by `$sb.Invoke(…)`.
 */

/** What the reader is to read of a method call. */
export type MethodCall =
  /** Text a script block is made of: the raw arguments, to be read as a string's value. */
  | { kind: 'script'; argument: string }
  /** A folder deleted recursively: `variable` (lower case, with a property: `_.fullname`), or the raw `group` before `.Delete(` with the raw `members` read from it (`.Parent`), or the raw `path` argument. */
  | { kind: 'delete'; variable?: string; group?: string; members?: string; path?: string }
  /** `.ForEach({ … })` (past any `.Where({ … })`): the block's `body`, run with each item of the `variable` or the raw `group` it is called on. */
  | { kind: 'each'; body: string; variable?: string; group?: string; members?: string }
  /** `$sb.Invoke(…)` (or InvokeReturnAsIs): the block saved in `variable` run with the raw `argument`s. */
  | { kind: 'invoke'; variable: string; argument: string };

/** A method's name after `.` or `::` and its `(`: 1 the separator, 2 the name. */
const METHOD = /(::|\.)\s*(delete|deletedirectory|create|newscriptblock|invokescript|foreach|invoke|invokereturnasis)\s*\(/gi;
/** The type a static method is called on, at the end of the text before `::`. */
const SCRIPT_BLOCK_TYPE = /\[\s*(?:system\.management\.automation\.)?scriptblock\s*\]\s*$/i;
const DIRECTORY_TYPE = /\[\s*(?:system\.)?io\.directory\s*\]\s*$/i;
const VB_FILE_SYSTEM_TYPE = /\[\s*(?:microsoft\.visualbasic\.fileio\.)?filesystem\s*\]\s*$/i;
const DIRECTORY_INFO_NEW = /\[\s*(?:system\.)?io\.directoryinfo\s*\]\s*::\s*new\s*$/i;
/** A variable, maybe with properties or indexes read from it, at the end of the text before `.Delete(`: 1 or 2 its name, 3 the rest. */
const RECEIVER_VARIABLE = /\$(?:\{([^{}]{1,200})\}|(?:(?:global|script|local|private):)?((?:env:)?[a-z_]\w{0,200}))((?:\.[a-z_]\w{0,200}|\[-?\d{1,9}\]){0,20})$/i;
/** Properties read from a group before a method (`(Get-Item ~).Parent.Delete(`), at the end of the text before it. */
const GROUP_MEMBERS = /\)((?:\.[a-z_]\w{0,40}){1,20})$/i;
/** How far back a type or a variable before a method is looked for. */
const LOOK_BACK = 600;

/** The method calls in one raw command that the reader reads, in order. Linear: a call inside another's arguments is read with them. */
export function methodCalls(raw: string): MethodCall[] {
  if (!/(?:delete|create|newscriptblock|invoke|foreach)/i.test(raw)) return [];
  const calls: MethodCall[] = [];
  const opens = groupOpenings(raw);
  let past = 0;
  METHOD.lastIndex = 0;
  for (let match = METHOD.exec(raw); match !== null; match = METHOD.exec(raw)) {
    if (match.index < past) continue;
    const start = match.index + match[0].length;
    const close = closingParen(raw, start);
    past = close;
    const argument = raw.slice(start, close);
    const before = raw.slice(Math.max(0, match.index - LOOK_BACK), match.index);
    const name = (match[2] ?? '').toLowerCase();
    const isStatic = match[1] === '::';
    const call = isStatic ? staticCall(name, before, argument) : instanceCall(name, raw, match.index, opens, argument);
    if (call !== null) calls.push(call);
  }
  return calls;
}

function staticCall(name: string, before: string, argument: string): MethodCall | null {
  if (name === 'create' && SCRIPT_BLOCK_TYPE.test(before)) return { kind: 'script', argument };
  const [path = '', second] = topLevelItems(argument);
  if (name === 'delete' && DIRECTORY_TYPE.test(before) && second !== undefined && !isFalse(second)) return { kind: 'delete', path };
  if (name === 'deletedirectory' && VB_FILE_SYSTEM_TYPE.test(before) && !/throwifdirectorynonempty/i.test(second ?? '')) return { kind: 'delete', path };
  return null;
}

/** `.Delete(recursive)` of a variable's item or of a group's (`(Get-Item ~)`, `[IO.DirectoryInfo]::new('C:\')`); a script block's text. */
function instanceCall(name: string, raw: string, at: number, opens: ReadonlyMap<number, number>, argument: string): MethodCall | null {
  if (name === 'newscriptblock' || name === 'invokescript') return { kind: 'script', argument };
  if (name === 'invoke' || name === 'invokereturnasis') {
    const receiver = receiverAt(raw, at, opens);
    return receiver !== null && 'variable' in receiver ? { kind: 'invoke', variable: receiver.variable, argument } : null;
  }
  if (name === 'foreach') {
    const body = /^\s*\{([\s\S]*)\}\s*$/.exec(argument)?.[1];
    const receiver = body === undefined ? null : receiverAt(raw, at, opens);
    return receiver === null || body === undefined ? null : { kind: 'each', body, ...receiver };
  }
  // DirectoryInfo.Delete() deletes only an empty folder; FileInfo's takes no argument.
  if (name !== 'delete' || argument.trim() === '' || isFalse(argument)) return null;
  const end = raw.slice(0, at).trimEnd().length;
  const open = raw[end - 1] === ')' ? opens.get(end - 1) : undefined;
  if (open !== undefined && DIRECTORY_INFO_NEW.test(raw.slice(Math.max(0, open - LOOK_BACK), open))) {
    return { kind: 'delete', path: topLevelItems(raw.slice(open + 1, end - 1))[0] ?? '' };
  }
  const receiver = receiverAt(raw, at, opens);
  return receiver === null ? null : { kind: 'delete', ...receiver };
}

/** `.Where(`, whose items (all of them, maybe) are those of what it is called on. */
const WHERE_METHOD = /\.\s*where\s*$/i;

/**
 * What a method at `at` is called on: a group (`(Get-Item ~)`) or a variable with its properties (`$_.FullName`),
 * past the `.Where({ … })` calls between them. Null for another.
 */
function receiverAt(raw: string, at: number, opens: ReadonlyMap<number, number>): { variable: string } | { group: string; members?: string } | null {
  let end = raw.slice(0, at).trimEnd().length;
  // `(…).Parent.Delete(`: the group, with the properties read from it.
  const members = GROUP_MEMBERS.exec(raw.slice(Math.max(0, end - LOOK_BACK), end));
  const open = members === null ? undefined : opens.get(end - (members[1] ?? '').length - 1);
  if (members !== null && open !== undefined) return { group: raw.slice(open + 1, end - (members[1] ?? '').length - 1), members: members[1] ?? '' };
  for (let open = opens.get(end - 1); raw[end - 1] === ')' && open !== undefined; open = opens.get(end - 1)) {
    const before = raw.slice(Math.max(0, open - LOOK_BACK), open);
    if (!WHERE_METHOD.test(before)) return { group: raw.slice(open + 1, end - 1) };
    end = open - (before.length - before.search(WHERE_METHOD));
  }
  const variable = RECEIVER_VARIABLE.exec(raw.slice(Math.max(0, end - LOOK_BACK), end));
  return variable === null ? null : { variable: `${variable[1] ?? variable[2] ?? ''}${variable[3] ?? ''}`.toLowerCase() };
}

/** Whether a boolean argument is false as written (`$false`, `0`). */
function isFalse(argument: string): boolean {
  return /^\s*(?:\$false|0)\s*$/i.test(argument);
}

/** Where the group each `)` closes opens, by the `)`'s index: one pass, quotes skipped. */
function groupOpenings(raw: string): Map<number, number> {
  const opens = new Map<number, number>();
  const stack: number[] = [];
  let quote: string | null = null;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i] as string;
    if (char === '`' && quote !== "'") i++;
    else if (quote !== null) quote = char === quote ? null : quote;
    else if (char === "'" || char === '"') quote = char;
    else if (char === '(') stack.push(i);
    else if (char === ')') {
      const open = stack.pop();
      if (open !== undefined) opens.set(i, open);
    }
  }
  return opens;
}

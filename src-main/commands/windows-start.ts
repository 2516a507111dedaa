/**
 * The commands that Start-Process (`saps`, `start`) and cmd's `start` have Windows run: a program and
 * the words of its command line, for the never-run rule's Windows reader (windows-tree.ts) to read as
 * any other command (`Start-Process cmd -ArgumentList '/c rd /s /q C:\'`).
 */

/** Start-Process's parameters that take a value, with its common ones, each as its names (aliases after the first). */
const VALUE_PARAMETERS: readonly string[][] = [
  ['-filepath', '-path', '-pspath'], ['-argumentlist', '-args'], ['-credential', '-runas'], ['-workingdirectory'],
  ['-redirectstandarderror', '-rse'], ['-redirectstandardinput', '-rsi'], ['-redirectstandardoutput', '-rso'], ['-windowstyle'],
  ['-verb'], ['-environment'], ['-erroraction', '-ea'], ['-warningaction', '-wa'], ['-errorvariable', '-ev'], ['-outvariable', '-ov'],
  ['-outbuffer', '-ob'], ['-pipelinevariable', '-pv'], ['-informationaction', '-infa'], ['-informationvariable', '-iv'],
];
const SWITCHES: readonly string[][] = [
  ['-loaduserprofile', '-lup'], ['-nonewwindow', '-nnw'], ['-passthru'], ['-wait'], ['-usenewenvironment'], ['-whatif', '-wi'],
  ['-confirm', '-cf'], ['-verbose', '-vb'], ['-debug', '-db'],
];

/** cmd's start options that take the next word as their value (`/d C:\x`, `/node 1`, `/affinity 3`). */
const CMD_START_VALUES = /^\/(?:d|node|affinity)$/i;

/** A command another starts: its words, and the folder it starts in when one is named (null: the same folder). */
export interface Started {
  words: string[];
  folder: string | null;
}

/**
 * The commands `program args…` starts: for Start-Process, its -FilePath and the command line its
 * -ArgumentList makes, in its -WorkingDirectory; for cmd's start, what follows its options, with and
 * without a first word that may be the window's title, in its /d folder. None for other programs.
 */
export function startedCommands(program: string, args: readonly string[], cmd: boolean): Started[] {
  if (cmd) return program === 'start' ? cmdStarted(args) : [];
  if (program !== 'start-process' && program !== 'saps' && program !== 'start') return [];
  const started = startProcessCommand(args);
  return started === null ? [] : [started];
}

/** The parameter (its first name) a `-name` word names: one of its names or the start of those of only one; null when none or several. */
function parameterNamed(word: string): string | null {
  const name = word.toLowerCase();
  const all = [...VALUE_PARAMETERS, ...SWITCHES];
  const exact = all.find((names) => names.includes(name));
  const starting = exact ? [exact] : all.filter((names) => names.some((one) => one.startsWith(name)));
  return starting.length === 1 ? (starting[0]?.[0] ?? null) : null;
}

/**
 * Start-Process's program and the words of the command line its -ArgumentList (or the words after the
 * program) makes, as the program's C runtime splits it; null when no program is named. A word that is
 * no parameter of Start-Process (`-Command`, `/c`) is one of the list's: an array's items come as words.
 */
function startProcessCommand(args: readonly string[]): Started | null {
  let file: string | undefined;
  let folder: string | null = null;
  const list: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    const colon = word.indexOf(':');
    const parameter = /^-[a-z]/i.test(word) ? parameterNamed(colon === -1 ? word : word.slice(0, colon)) : null;
    if (parameter === null) {
      if (file === undefined) file = word;
      else list.push(word);
      continue;
    }
    if (!VALUE_PARAMETERS.some((names) => names[0] === parameter)) continue;
    const value = colon === -1 ? args[++i] : word.slice(colon + 1);
    if (value === undefined) continue;
    if (parameter === '-filepath') file = value;
    else if (parameter === '-argumentlist') list.push(value);
    else if (parameter === '-workingdirectory') folder = value;
  }
  return file === undefined ? null : { words: [file, ...commandLineWords(list.join(' '))], folder };
}

/** A command line cut into words as a program's C runtime does, roughly: at spaces outside double quotes, the quotes gone. */
function commandLineWords(line: string): string[] {
  const all: string[] = [];
  for (const match of line.matchAll(/(?:"[^"]*"?|[^\s"])+/g)) all.push(match[0].replace(/"/g, ''));
  return all;
}

/** cmd's `start ["title"] [/options] program args`: the words after the options, read with and without a first word that may be the title. */
function cmdStarted(args: readonly string[]): Started[] {
  return [args, args.slice(1)].map(pastStartOptions).filter((started) => started.words.length > 0);
}

function pastStartOptions(args: readonly string[]): Started {
  let at = 0;
  let folder: string | null = null;
  while (at < args.length && (args[at] as string).startsWith('/')) {
    const option = args[at] as string;
    if (/^\/d$/i.test(option)) folder = args[at + 1] ?? null;
    else if (/^\/d./i.test(option)) folder = option.slice(2);
    at += CMD_START_VALUES.test(option) ? 2 : 1;
  }
  return { words: args.slice(at), folder };
}

/** launch_app's argument string, read the same way by the device (to run it) and the safety policy (to judge it). */

/** Splits a command line like a POSIX shell does with quotes and backslashes (no expansion). */
export function splitArgs(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let inArg = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote === "'") {
      if (char === "'") quote = null;
      else current += char;
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) current += line[++i];
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inArg = true;
    } else if (char === '\\' && i + 1 < line.length) {
      current += line[++i];
      inArg = true;
    } else if (/\s/.test(char)) {
      if (inArg) args.push(current);
      current = '';
      inArg = false;
    } else {
      current += char;
      inArg = true;
    }
  }
  if (quote) throw new Error(`unbalanced ${quote} quote in arguments`);
  if (inArg) args.push(current);
  return args;
}

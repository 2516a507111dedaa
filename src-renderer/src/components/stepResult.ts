import { z } from 'zod';
import { formatDuration } from './labels';

/**
 * A step's tool result for people. The host keeps each tool's result as the text it returned, one line
 * per action; execute_command's is its JSON output, which reads badly in a trajectory card.
 */

/** execute_command's output as the result line carries it; anything else on the line stays text. */
const CommandOutput = z.object({
  exit_code: z.number().int().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean(),
  timed_out: z.boolean().optional(),
  signal: z.string().nullable().optional(),
  duration_ms: z.number().nonnegative().optional(),
});
export type CommandOutput = z.infer<typeof CommandOutput>;

export type ResultPart = { kind: 'text'; text: string } | { kind: 'command'; output: CommandOutput };

/** The result's lines, each a command's output or plain text. */
export function resultParts(result: string): ResultPart[] {
  return result.split('\n').map((line) => {
    const output = line.startsWith('{') ? parseCommandOutput(line) : null;
    return output ? { kind: 'command', output } : { kind: 'text', text: line };
  });
}

function parseCommandOutput(line: string): CommandOutput | null {
  try {
    const parsed = CommandOutput.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** How a command ended: "exit 0", "exit 2", "timed out", "killed by SIGTERM". */
export function commandEnd(output: CommandOutput): string {
  if (output.timed_out) return 'timed out';
  if (output.exit_code === null) return output.signal ? `killed by ${output.signal}` : 'no exit code';
  return `exit ${output.exit_code}`;
}

const PREVIEW_CHARS = 160;

/** The first line with something on it, cut to `max` characters, and how many lines there are. */
function preview(text: string, max = PREVIEW_CHARS): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  const first = lines.find((line) => line.trim() !== '')?.trim() ?? '';
  const cut = first.length > max ? `${first.slice(0, max)}…` : first;
  return lines.length > 1 ? `${cut} (${lines.length} lines)` : cut;
}

/** One line for a trajectory card: "exit 0 · 33 ms · hello (3 lines)"; stderr leads when it failed. */
export function commandSummary(output: CommandOutput): string {
  const parts = [commandEnd(output)];
  if (output.duration_ms !== undefined) parts.push(formatDuration(output.duration_ms));
  const failed = output.timed_out === true || output.exit_code !== 0;
  const first = failed && output.stderr.trim() ? output.stderr : output.stdout.trim() ? output.stdout : output.stderr;
  parts.push(first.trim() ? preview(first) : 'no output');
  if (output.truncated) parts.push('output cut');
  return parts.join(' · ');
}

/** The whole result as a card shows it: command outputs summarised, other lines as they are. */
export function resultSummary(result: string): string {
  return resultParts(result)
    .map((part) => (part.kind === 'command' ? commandSummary(part.output) : part.text))
    .join('\n');
}

import { parseArgs } from 'node:util';
import { z } from 'zod';
import { MAX_REQUEST_CHARS, SessionMode } from '../protocol';

export const CliRun = z.object({
  request: z
    .string()
    .trim()
    .min(1, 'give a request: deskhand run "REQUEST"')
    .max(MAX_REQUEST_CHARS, `the request is too long: at most ${MAX_REQUEST_CHARS.toLocaleString('en')} characters`),
  mode: SessionMode,
  answers: z.array(z.string()),
  approve: z.boolean(),
});
export type CliRun = z.infer<typeof CliRun>;

export type CliCommand = { kind: 'run'; run: CliRun } | { kind: 'help' } | { kind: 'version' };

export const USAGE = `Usage: deskhand run "REQUEST" [--mode desktop|shell] [--answer TEXT]... [--approve]
       deskhand --help | --version

Runs one request without the UI and prints one JSON line per event on stdout.

  --mode desktop|shell  desktop (the default): the HostAgent sees the screen and hands work to
                        applications and the ShellAgent; shell: the ShellAgent alone, which also
                        works without a display
  --answer TEXT         answers the agent's next question (repeat it for several, in order)
  --approve             approves every step held for approval (by default they are rejected)

A step whose action did not run says why on stderr ("deskhand: step 2 not run: rejected ..."), and
its step.added line has it as notRun: rejected, paused, refused (by the safety policy's never-run
rule), taken-over (you had the mouse) or stopped (Stop came before it ran); null otherwise.

A run that pauses (you took the mouse, or the disk that holds Deskhand's data is nearly full) says
why on stderr; on a terminal Enter resumes it, otherwise it is stopped (exit status 2).

Exit status: 0 finished, 1 failed, 130 stopped with Ctrl+C (143 with SIGTERM), 141 stopped because nothing reads the
output any more (| head), 2 error (also for bad usage, no model configured, or a pause nobody could
resume).`;

/** The option each field of a run comes from, to name it in an error. */
const FIELD_OPTIONS: Record<string, string> = { mode: '--mode', answers: '--answer', approve: '--approve' };

/** Parses the command line; throws an Error whose message is meant for the user. */
export function parseCliArgs(argv: readonly string[]): CliCommand {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      mode: { type: 'string', default: 'desktop' },
      answer: { type: 'string', multiple: true, default: [] },
      approve: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'V', default: false },
    },
  });
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  const [verb, ...rest] = positionals;
  if (verb !== 'run') throw new Error(verb ? `unknown command '${verb}'` : 'no command given');
  const parsed = CliRun.safeParse({
    request: rest.join(' '),
    mode: values.mode,
    answers: values.answer,
    approve: values.approve,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const option = FIELD_OPTIONS[String(issue?.path[0])];
    if (option === '--mode') throw new Error(`--mode is desktop or shell, not '${values.mode}'`);
    throw new Error(`${option ? `${option}: ` : ''}${issue?.message ?? 'invalid arguments'}`);
  }
  return { kind: 'run', run: parsed.data };
}

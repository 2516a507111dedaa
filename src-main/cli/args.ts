import { parseArgs } from 'node:util';
import { z } from 'zod';
import { MAX_REQUEST_CHARS, SessionMode } from '../protocol';

export const CliRun = z.object({
  request: z.string().trim().min(1, 'give a request: deskhand run "REQUEST"').max(MAX_REQUEST_CHARS),
  mode: SessionMode,
  answers: z.array(z.string()),
  approve: z.boolean(),
});
export type CliRun = z.infer<typeof CliRun>;

export const USAGE = `Usage: deskhand run "REQUEST" [--mode desktop|shell] [--answer TEXT]... [--approve]

Runs one request headless and prints one JSON line per event.
Exit status: 0 finished, 1 failed, 2 error (also for bad usage or no model configured).`;

/** Parses `deskhand run ...`; throws an Error whose message is meant for the user. */
export function parseCliArgs(argv: readonly string[]): CliRun {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      mode: { type: 'string', default: 'desktop' },
      answer: { type: 'string', multiple: true, default: [] },
      approve: { type: 'boolean', default: false },
    },
  });
  const [verb, ...rest] = positionals;
  if (verb !== 'run') throw new Error(verb ? `unknown command '${verb}'` : 'no command given');
  const parsed = CliRun.safeParse({
    request: rest.join(' '),
    mode: values.mode,
    answers: values.answer,
    approve: values.approve,
  });
  if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'invalid arguments');
  return parsed.data;
}

import type { z } from 'zod';
import { headOf } from './text-head';

/** One issue may quote the input's own keys, which can be any length; its text is cut here. */
const ISSUE_CHARS = 200;

/**
 * A validation failure in a line: the first `max` issues, each "path: message" (`root` names the
 * whole input), each at most ISSUE_CHARS long, so that hostile input cannot make the error huge.
 */
export function issuesText(error: z.ZodError, options: { root: string; max: number }): string {
  return error.issues
    .slice(0, options.max)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : options.root}: ${issue.message}`)
    .map((text) => (text.length > ISSUE_CHARS ? `${headOf(text, ISSUE_CHARS)}…` : text))
    .join('; ');
}

import type { z } from 'zod';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Longer replies are refused before any parsing work: no model needs a megabyte to pick one action. */
export const MAX_REPLY_CHARS = 64_000;

/**
 * Finds the first complete JSON object in a model reply: models wrap it in code fences or put words
 * before it. Strings are tracked so braces inside them do not count.
 */
export function extractJsonObject(text: string): string | null {
  const start = text.indexOf('{');
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}') {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return null;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(reply)'}: ${issue.message}`)
    .join('; ');
}

const PROTO_KEY = /"(?:__proto__|\\u005[fF]\\u005[fF]proto\\u005[fF]\\u005[fF])"\s*:/;

/** Lenient to find the JSON, strict to accept it. */
export function parseModelReply<S extends z.ZodType>(text: string, schema: S): ParseResult<z.infer<S>> {
  if (!text.trim()) return { ok: false, error: 'the reply is empty' };
  if (text.length > MAX_REPLY_CHARS) {
    return { ok: false, error: `the reply is ${text.length} characters; at most ${MAX_REPLY_CHARS} are accepted` };
  }
  const candidate = extractJsonObject(text);
  if (candidate === null) return { ok: false, error: 'the reply is not valid JSON: no JSON object found' };
  // JSON.parse makes "__proto__" an own key that validation would then drop without a word. Checked on
  // the text (a reviver would recurse and overflow on deeply nested replies); one inside a string value
  // is refused too, which is safe.
  if (PROTO_KEY.test(candidate)) return { ok: false, error: 'the reply has a "__proto__" key, which is not allowed' };
  let data: unknown;
  try {
    data = JSON.parse(candidate);
  } catch (error) {
    return { ok: false, error: `the reply is not valid JSON: ${(error as Error).message}` };
  }
  const checked = schema.safeParse(data);
  if (!checked.success) return { ok: false, error: `the reply does not match the format: ${describeIssues(checked.error)}` };
  return { ok: true, value: checked.data };
}

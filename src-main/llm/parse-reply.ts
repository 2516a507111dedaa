import type { z } from 'zod';
import { issuesText } from '../common/zod-issues';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Longer replies are refused before any parsing work: no model needs a megabyte to pick one action. */
export const MAX_REPLY_CHARS = 64_000;

/** The characters of `text` from `from` on that are outside JSON strings, with their index. */
function* outsideStrings(text: string, from: number): Generator<[number, string]> {
  let inString = false;
  let escaped = false;
  for (let i = from; i < text.length; i++) {
    const char = text[i] as string;
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else yield [i, char];
  }
}

/**
 * Finds the first complete JSON object in a model reply: models wrap it in code fences or put words
 * before it. Strings are tracked so braces inside them do not count.
 */
export function extractJsonObject(text: string, from = 0): string | null {
  const start = text.indexOf('{', from);
  if (start < 0) return null;
  let depth = 0;
  for (const [i, char] of outsideStrings(text, start)) {
    if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

/**
 * Deeper JSON than any reply needs (the contract nests four levels). Far deeper nesting parses, but the
 * recursive walks after it (JSON.stringify when the step is stored, the policy's walk of arguments)
 * would overflow the stack.
 */
export const MAX_REPLY_DEPTH = 32;

/** The deepest nesting of objects and arrays in `json`, brackets inside strings not counted. */
export function nestingDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  for (const [, char] of outsideStrings(json, 0)) {
    if (char === '{' || char === '[') deepest = Math.max(deepest, ++depth);
    else if (char === '}' || char === ']') depth--;
  }
  return deepest;
}

/** Top-level objects tried in a reply; words before the real one rarely hold more than a few. */
const MAX_OBJECTS_TRIED = 32;
const FENCED_JSON = /```(?:json)?\s*\n(\{[\s\S]*?\})\s*```/;

/** The complete top-level objects of `text`, in order: one that never closes ends the list (a cut reply). */
function* topLevelObjects(text: string): Generator<string> {
  let from = 0;
  for (let tried = 0; tried < MAX_OBJECTS_TRIED; tried++) {
    const start = text.indexOf('{', from);
    const object = start < 0 ? null : extractJsonObject(text, start);
    if (object === null) return;
    yield object;
    from = start + object.length;
  }
}

/**
 * The reply's JSON object candidates, parsed: a fenced block's first, then each top-level object in
 * turn, so that braces in the words before it ("I will click at {x, y}", or at {"x": 1, "y": 2}) do not
 * hide it. Objects nested in another are never taken for the reply. A candidate too deep or with a
 * "__proto__" key ends the search with its error.
 */
function* jsonCandidates(text: string): Generator<{ data: unknown } | { error: string; fatal: boolean }> {
  const fenced = FENCED_JSON.exec(text)?.[1];
  const candidates = fenced ? [fenced, ...topLevelObjects(text)] : topLevelObjects(text);
  for (const candidate of candidates) {
    const depth = nestingDepth(candidate);
    if (depth > MAX_REPLY_DEPTH) {
      yield { error: `the reply nests ${depth} levels deep; at most ${MAX_REPLY_DEPTH} are accepted`, fatal: true };
      return;
    }
    try {
      const data = parseWithoutProtoKeys(candidate);
      if (data === PROTO_KEY) {
        yield { error: 'the reply has a "__proto__" key, which is not allowed', fatal: true };
        return;
      }
      yield { data };
    } catch (parseError) {
      yield { error: `the reply is not valid JSON: ${(parseError as Error).message}`, fatal: false };
    }
  }
}

const PROTO_KEY = Symbol('a "__proto__" key');

/**
 * JSON.parse makes "__proto__" an own key that validation would then drop without a word. The reviver
 * sees each key decoded, however it was escaped ("\u005f_proto__"); it recurses, so it runs only on text
 * whose depth was checked.
 */
function parseWithoutProtoKeys(json: string): unknown {
  let found = false;
  const data: unknown = JSON.parse(json, (key, value: unknown) => {
    if (key === '__proto__') found = true;
    return value;
  });
  return found ? PROTO_KEY : data;
}

/** Lenient to find the JSON, strict to accept it. */
export function parseModelReply<S extends z.ZodType>(text: string, schema: S): ParseResult<z.infer<S>> {
  if (!text.trim()) return { ok: false, error: 'the reply is empty' };
  if (text.length > MAX_REPLY_CHARS) {
    return { ok: false, error: `the reply is ${text.length} characters; at most ${MAX_REPLY_CHARS} are accepted` };
  }
  // The one object that fits is the reply; else the nearest miss (fewest issues: the reply, not an
  // object in the words before it) says why, else the first JSON error. Two different objects that fit
  // (a reply quoted from the screen, then the model's own) are refused: running either would be a guess.
  let fits: { value: z.infer<S> } | null = null;
  const fitting = new Set<string>();
  let nearest: z.ZodError | null = null;
  let invalid: string | null = null;
  for (const found of jsonCandidates(text)) {
    if ('error' in found) {
      if (found.fatal) return { ok: false, error: found.error };
      invalid ??= found.error;
      continue;
    }
    const checked = schema.safeParse(found.data);
    if (checked.success) {
      fits ??= { value: checked.data };
      // As parsed: keys in the format's order, so the same reply written twice in another order is one.
      fitting.add(JSON.stringify(checked.data));
      continue;
    }
    if (!nearest || checked.error.issues.length < nearest.issues.length) nearest = checked.error;
  }
  if (fitting.size > 1) {
    return { ok: false, error: `the reply holds ${fitting.size} different JSON objects in the reply format; give exactly one` };
  }
  if (fits) return { ok: true, value: fits.value };
  if (nearest) return { ok: false, error: `the reply does not match the format: ${issuesText(nearest, { root: '(reply)', max: 8 })}` };
  return { ok: false, error: invalid ?? 'the reply is not valid JSON: no JSON object found' };
}

import { APIError } from 'openai';
import { REDACTED_SECRET, redactText, SecretScrubber } from '../common/scrub';
import { NotAChatCompletion } from './completion';

/** One attempt ran out of its time (the whole reply, not just the headers). */
export class AttemptTimeout extends Error {}

/** Worth another try: rate limits, server errors, timeouts and dropped connections. */
export function retryable(error: unknown): boolean {
  if (error instanceof AttemptTimeout) return true;
  if (error instanceof NotAChatCompletion) return false;
  if (permanentFailure(error)) return false;
  if (error instanceof APIError && typeof error.status === 'number') return error.status === 408 || error.status === 429 || error.status >= 500;
  return error instanceof Error;
}

/** A 400 that names the model as unknown, in the words of OpenAI, LiteLLM, OpenRouter and vLLM-like servers. */
const UNKNOWN_MODEL = /\b(?:invalid model|not a valid model|unknown model|no such model|model[^.]{0,80}(?:not found|does not exist))/i;

/**
 * What no retry or next step can mend, so the round ends at once: an endpoint or model that does not
 * exist (404, or a 400 about the model) and an account out of quota. A 401 is not among them: a gateway
 * renewing its token may send one.
 */
export function permanentFailure(error: unknown): 'model' | 'quota' | null {
  if (!(error instanceof APIError) || refusesTemperature(error)) return null;
  if (error.status === 404) return 'model';
  if (error.status === 400 && (error.param === 'model' || error.code === 'model_not_found' || UNKNOWN_MODEL.test(error.message))) return 'model';
  if (error.status === 429 && error.code === 'insufficient_quota') return 'quota';
  return null;
}

/**
 * How long the endpoint asks to wait, in milliseconds: `retry-after-ms` (OpenAI and Azure send it, more
 * precise), else Retry-After in seconds or as an HTTP date; null when absent or unreadable.
 */
export function retryAfterMs(error: unknown): number | null {
  if (!(error instanceof APIError)) return null;
  const rawMs = error.headers?.get('retry-after-ms')?.trim();
  const ms = rawMs ? Number(rawMs) : Number.NaN;
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = error.headers?.get('retry-after');
  if (!raw) return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/**
 * A 400 about `temperature`: OpenAI's reasoning models (o-series, gpt-5) accept only their default and
 * say so as an unsupported value or parameter.
 */
export function refusesTemperature(error: unknown): boolean {
  return error instanceof APIError && error.status === 400 && (error.param === 'temperature' || /\btemperature\b/i.test(error.message));
}

/** The innermost error under `error` (fetch hides the reason two or three `cause`s deep). */
function rootCause(error: Error): Error {
  const seen = new Set<Error>();
  let current = error;
  while (!seen.has(current)) {
    seen.add(current);
    // Node reports a refused connection to every address of a host as an AggregateError without a message.
    const next = current.cause ?? (current instanceof AggregateError ? current.errors[0] : undefined);
    if (!(next instanceof Error)) break;
    current = next;
  }
  return current;
}

/** An error's code (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET, ...) and message, the code said once. */
function codeAndMessage(error: Error): string {
  const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
  if (!code || error.message.includes(code)) return error.message || code;
  return error.message ? `${code}: ${error.message}` : code;
}

/** What went wrong, in a line; not yet redacted or shortened. */
export function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof AttemptTimeout) return `timed out: no complete reply within ${Math.round(timeoutMs / 1000)} s`;
  if (error instanceof NotAChatCompletion) return error.message;
  if (error instanceof APIError && typeof error.status === 'number') {
    // The SDK's message already starts with the status.
    const prefix = `${error.status} `;
    const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    return message === 'status code (no body)' ? `HTTP ${error.status} (no body)` : `HTTP ${error.status}: ${message}`;
  }
  if (!(error instanceof Error)) return String(error);
  const root = rootCause(error);
  return root === error ? codeAndMessage(error) : `${error.message} (${codeAndMessage(root)})`;
}

/** user:password@ in any URL. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Removes the endpoint's secrets from text about it: the API key, the password of the base URL (and any
 * URL's user info: fetch quotes the whole URL when it refuses one with credentials), and whatever looks
 * like a key or token.
 */
export function redactEndpointSecrets(text: string, endpoint: { baseUrl: string; apiKey: string }): string {
  const password = URL.canParse(endpoint.baseUrl) ? new URL(endpoint.baseUrl).password : '';
  const secrets = new SecretScrubber(() => [endpoint.apiKey, password, decoded(password)]);
  return redactText(secrets.text(text).replace(URL_USERINFO, `$1${REDACTED_SECRET}@`));
}

import OpenAI, { APIError } from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { childSignal, sleep } from '../common/child-signal';

export type ChatMessage = ChatCompletionMessageParam;

export interface ModelSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Ask the endpoint for a JSON object (response_format); off for endpoints that refuse it. */
  jsonMode: boolean;
  /** The most one attempt may take, from sending to the last byte of the reply. */
  timeoutMs: number;
  maxRetries: number;
  /** Removes secrets from what is sent (a command's output may contain one). */
  scrub?: <T>(value: T) => T;
}

export interface ModelAnswer {
  text: string;
  usage: { prompt: number; completion: number };
  durationMs: number;
}

/** A failed model request, in words that name the endpoint and stay short whatever the endpoint sent. */
export class ModelRequestError extends Error {}

const MAX_ERROR_DETAIL = 300;
const FIRST_BACKOFF_MS = 500;

function short(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_ERROR_DETAIL ? `${line.slice(0, MAX_ERROR_DETAIL)}…` : line;
}

class AttemptTimeout extends Error {}

/** Worth another try: rate limits, server errors, timeouts and dropped connections. */
function retryable(error: unknown): boolean {
  if (error instanceof AttemptTimeout) return true;
  if (error instanceof APIError && typeof error.status === 'number') return error.status === 408 || error.status === 429 || error.status >= 500;
  return error instanceof Error;
}

/** Seconds (or an HTTP date) from Retry-After, in milliseconds; null when absent or unreadable. */
function retryAfterMs(error: unknown): number | null {
  if (!(error instanceof APIError)) return null;
  const raw = error.headers?.get('retry-after');
  if (!raw) return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof AttemptTimeout) return `timed out: no complete reply within ${Math.round(timeoutMs / 1000)} s`;
  if (error instanceof APIError && typeof error.status === 'number') return short(`HTTP ${error.status}: ${error.message}`);
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return short(`${error instanceof Error ? error.message : String(error)}${cause}`);
}

/**
 * The one place that talks to the model endpoint. Each attempt has a deadline for the whole reply (the
 * SDK's own timeout stops once the headers arrive); 429/5xx, timeouts and dropped connections are tried
 * again up to `maxRetries` times, honouring Retry-After but never waiting longer than one attempt's
 * budget; Stop aborts an attempt or a wait at once.
 */
export class ModelClient {
  private readonly client: OpenAI;

  constructor(private readonly settings: ModelSettings) {
    this.client = new OpenAI({
      baseURL: settings.baseUrl,
      apiKey: settings.apiKey,
      timeout: settings.timeoutMs,
      // Retries are done here, where their waits can be capped and aborted.
      maxRetries: 0,
    });
  }

  get model(): string {
    return this.settings.model;
  }

  async complete(original: ChatMessage[], signal?: AbortSignal): Promise<ModelAnswer> {
    const messages = this.settings.scrub ? this.settings.scrub(original) : original;
    // From here on, the time is the endpoint's (retries and their back-off included).
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return { ...(await this.attempt(messages, signal)), durationMs: performance.now() - started };
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        const detail = describe(error, this.settings.timeoutMs);
        if (!retryable(error) || attempt >= this.settings.maxRetries) {
          throw new ModelRequestError(`the model endpoint ${this.settings.baseUrl} failed: ${detail}`, { cause: error });
        }
        const backoff = FIRST_BACKOFF_MS * 2 ** attempt * (0.75 + Math.random() * 0.5);
        await sleep(Math.min(retryAfterMs(error) ?? backoff, this.settings.timeoutMs), signal);
      }
    }
  }

  private async attempt(messages: ChatMessage[], signal?: AbortSignal): Promise<Omit<ModelAnswer, 'durationMs'>> {
    const request = childSignal(signal);
    const deadline = setTimeout(() => request.abort(new AttemptTimeout()), this.settings.timeoutMs);
    try {
      const completion = await this.client.chat.completions.create(
        {
          model: this.settings.model,
          messages,
          temperature: 0,
          ...(this.settings.jsonMode ? { response_format: { type: 'json_object' as const } } : {}),
        },
        { signal: request.signal },
      );
      return {
        text: completion.choices[0]?.message?.content ?? '',
        usage: { prompt: completion.usage?.prompt_tokens ?? 0, completion: completion.usage?.completion_tokens ?? 0 },
      };
    } catch (error) {
      if (request.signal.reason instanceof AttemptTimeout && !signal?.aborted) throw request.signal.reason;
      throw error;
    } finally {
      clearTimeout(deadline);
      request.release();
    }
  }
}

import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { childSignal, sleep } from '../common/child-signal';
import { readCompletion } from './completion';
import { APIError } from 'openai';
import {
  AttemptTimeout,
  describe,
  permanentFailure,
  redactEndpointSecrets,
  refusesTemperature,
  retryable,
  retryAfterMs,
} from './model-errors';
import { headOf } from '../common/text-head';
import { wellFormedMessages } from './well-formed-messages';

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
  /** Why the text may be unusable, when the endpoint said (a refusal, a cut or filtered reply). */
  note?: string;
}

/**
 * A failed model request, in words that name the endpoint and stay short whatever the endpoint sent.
 * `endsRound`: no later step can succeed either (an unknown model or endpoint, no quota left).
 */
export class ModelRequestError extends Error {
  constructor(
    message: string,
    readonly endsRound = false,
  ) {
    super(message);
  }
}

/** Whether `error`, or an error it wraps, is a model failure that ends the round at once. */
export function endsRound(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (current instanceof ModelRequestError) return current.endsRound;
  }
  return false;
}

const MAX_ERROR_DETAIL = 300;
const FIRST_BACKOFF_MS = 500;
/** Deterministic answers for an agent; dropped for models that accept only their default. */
const TEMPERATURE = 0;

function short(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_ERROR_DETAIL ? `${headOf(line, MAX_ERROR_DETAIL)}…` : line;
}

/**
 * The one place that talks to the model endpoint. Each attempt has a deadline for the whole reply (the
 * SDK's own timeout stops once the headers arrive); 429/5xx, timeouts and dropped connections are tried
 * again up to `maxRetries` times, honouring Retry-After but never waiting longer than one attempt's
 * budget; Stop aborts an attempt or a wait at once. A model that refuses a temperature (OpenAI's reasoning
 * models) is asked again at once without one, outside the retry budget, and never sent one again.
 */
export class ModelClient {
  private readonly client: OpenAI;
  private sendsTemperature = true;

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
    const messages = wellFormedMessages(this.settings.scrub ? this.settings.scrub(original) : original);
    // From here on, the time is the endpoint's (retries and their back-off included).
    const started = performance.now();
    for (let attempt = 0; ; ) {
      const withTemperature = this.sendsTemperature;
      try {
        return { ...(await this.attempt(messages, withTemperature, signal)), durationMs: performance.now() - started };
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        if (withTemperature && refusesTemperature(error)) {
          this.sendsTemperature = false;
          continue;
        }
        if (!retryable(error) || attempt >= this.settings.maxRetries) throw this.failure(error);
        const backoff = FIRST_BACKOFF_MS * 2 ** attempt * (0.75 + Math.random() * 0.5);
        await sleep(Math.min(retryAfterMs(error) ?? backoff, this.settings.timeoutMs), signal);
        attempt++;
      }
    }
  }

  /**
   * The error a caller sees: short, naming the endpoint, free of its secrets. The SDK's error is not kept
   * as the cause, since fetch's own errors may quote the base URL with its password.
   */
  private failure(error: unknown): ModelRequestError {
    const redact = (text: string): string => {
      const clean = redactEndpointSecrets(text, this.settings);
      return this.settings.scrub ? this.settings.scrub(clean) : clean;
    };
    // Redacted before it is shortened, so a cut cannot leave part of a secret behind.
    const detail = short(redact(describe(error, this.settings.timeoutMs)));
    const permanent = permanentFailure(error);
    return new ModelRequestError(`the model endpoint ${redact(this.settings.baseUrl)} failed: ${detail}${redact(this.whatToDo(error))}`, permanent !== null);
  }

  /** The user's next move, for the failures that need one. */
  private whatToDo(error: unknown): string {
    const model = JSON.stringify(short(this.settings.model));
    switch (permanentFailure(error)) {
      case 'model':
        return `; check the model name ${model} and the base URL (it usually ends in /v1)`;
      case 'quota':
        return '; the account has no quota left: check its plan and billing';
      default:
        if (error instanceof APIError && error.status === 401) return '; check the API key';
        if (error instanceof APIError && error.status === 403) return `; check that the API key may use the model ${model}`;
        return '';
    }
  }

  private async attempt(messages: ChatMessage[], withTemperature: boolean, signal?: AbortSignal): Promise<Omit<ModelAnswer, 'durationMs'>> {
    const request = childSignal(signal);
    const deadline = setTimeout(() => request.abort(new AttemptTimeout()), this.settings.timeoutMs);
    try {
      const completion: unknown = await this.client.chat.completions.create(
        {
          model: this.settings.model,
          messages,
          ...(withTemperature ? { temperature: TEMPERATURE } : {}),
          ...(this.settings.jsonMode ? { response_format: { type: 'json_object' as const } } : {}),
        },
        { signal: request.signal },
      );
      return readCompletion(completion);
    } catch (error) {
      if (request.signal.reason instanceof AttemptTimeout && !signal?.aborted) throw request.signal.reason;
      throw error;
    } finally {
      clearTimeout(deadline);
      request.release();
    }
  }
}

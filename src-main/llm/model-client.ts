import OpenAI from 'openai';
import { childSignal } from '../common/child-signal';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

export type ChatMessage = ChatCompletionMessageParam;

export interface ModelSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Ask the endpoint for a JSON object (response_format); off for endpoints that refuse it. */
  jsonMode: boolean;
  timeoutMs: number;
  maxRetries: number;
}

export interface ModelAnswer {
  text: string;
  usage: { prompt: number; completion: number };
  durationMs: number;
}

/**
 * The one place that talks to the model endpoint. The SDK retries 429/5xx with backoff and honours
 * Retry-After; the caller's signal aborts the request in flight (Stop).
 */
export class ModelClient {
  private readonly client: OpenAI;

  constructor(private readonly settings: ModelSettings) {
    this.client = new OpenAI({
      baseURL: settings.baseUrl,
      apiKey: settings.apiKey,
      timeout: settings.timeoutMs,
      maxRetries: settings.maxRetries,
    });
  }

  get model(): string {
    return this.settings.model;
  }

  async complete(messages: ChatMessage[], signal?: AbortSignal): Promise<ModelAnswer> {
    const started = performance.now();
    const request = childSignal(signal);
    const completion = await this.client.chat.completions.create(
      {
        model: this.settings.model,
        messages,
        temperature: 0,
        ...(this.settings.jsonMode ? { response_format: { type: 'json_object' as const } } : {}),
      },
      { signal: request.signal },
    ).finally(() => request.release());
    const text = completion.choices[0]?.message?.content ?? '';
    return {
      text,
      usage: { prompt: completion.usage?.prompt_tokens ?? 0, completion: completion.usage?.completion_tokens ?? 0 },
      durationMs: performance.now() - started,
    };
  }
}

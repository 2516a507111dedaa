import type { z } from 'zod';
import type { ChatMessage, ModelAnswer, ModelClient } from './model-client';
import { parseModelReply } from './parse-reply';
import { headOf } from '../common/text-head';

export interface ModelExchange<T> {
  reply: T | null;
  /** Why the last reply could not be used, when reply is null. */
  error: string | null;
  /** The last reply's raw text, kept for the step detail view. */
  text: string;
  usage: { prompt: number; completion: number };
  attempts: number;
  /** Time spent waiting on the model endpoint, over every attempt. */
  waitedMs: number;
  /**
   * A repair request that failed (the endpoint went down, Stop) after earlier attempts had spent
   * tokens: the step fails with it, and those tokens are still counted.
   */
  failure?: unknown;
}

/**
 * The error quotes the reply (its keys, a refusal, a bit of broken JSON), which may carry text from the
 * screen: it goes as data on one line, '<' replaced, so it cannot pose as the user's words.
 */
function repairPrompt(error: string): string {
  const quoted = error.replace(/\s+/g, ' ').trim().replace(/</g, '‹');
  return (
    `Your reply could not be used: <data name="error">${quoted}</data>\n` +
    'Answer again with exactly one JSON object in the required format and nothing else.'
  );
}

/**
 * Asks the model and checks its reply; a reply that does not fit is sent back once or more (bounded)
 * with the validation error quoted, so the model can mend it. Invalid output never leaves here as a reply.
 */
export async function askModel<S extends z.ZodType>(
  model: ModelClient,
  messages: readonly ChatMessage[],
  schema: S,
  options: { maxRepairs: number; signal: AbortSignal },
): Promise<ModelExchange<z.infer<S>>> {
  const conversation: ChatMessage[] = [...messages];
  const usage = { prompt: 0, completion: 0 };
  let text = '';
  let error: string | null = null;
  let waitedMs = 0;
  for (let attempt = 1; attempt <= options.maxRepairs + 1; attempt++) {
    let answer: ModelAnswer;
    try {
      answer = await model.complete(conversation, options.signal);
    } catch (failure) {
      if (attempt === 1) throw failure;
      return { reply: null, error, text, usage, attempts: attempt, waitedMs, failure };
    }
    waitedMs += answer.durationMs;
    usage.prompt += answer.usage.prompt;
    usage.completion += answer.usage.completion;
    text = answer.text;
    const parsed = parseModelReply(text, schema);
    if (parsed.ok) return { reply: parsed.value, error: null, text, usage, attempts: attempt, waitedMs };
    error = answer.note ? `${answer.note}; ${parsed.error}` : parsed.error;
    conversation.push({ role: 'assistant', content: headOf(text, 8_000) }, { role: 'user', content: repairPrompt(error) });
  }
  return { reply: null, error, text, usage, attempts: options.maxRepairs + 1, waitedMs };
}

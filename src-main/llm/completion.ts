import { z } from 'zod';

/**
 * The part of an OpenAI chat completion that Deskhand reads. Lenient where endpoints differ (no usage,
 * null content, no choices at all), strict where a reply that lacks it cannot be a chat completion.
 */
const ChatCompletionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullish() }).nullish() })),
  // Usage only feeds the cost display: an endpoint that reports it oddly still answers.
  usage: z
    .object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() })
    .nullish()
    .catch(null),
});

/** A 200 reply that is not a chat completion: a wrong base URL (a web page, another API), so not worth retrying. */
export class NotAChatCompletion extends Error {}

const SAMPLE_CHARS = 60;

/** What arrived instead, in a few words. */
function sample(body: unknown): string {
  if (body === null || body === undefined || body === '') return 'an empty body';
  const text = (typeof body === 'string' ? body : JSON.stringify(body)).replace(/\s+/g, ' ').trim();
  const start = text.length > SAMPLE_CHARS ? `${text.slice(0, SAMPLE_CHARS)}…` : text;
  return typeof body === 'string' ? `text: ${start}` : start;
}

/** The answer's text and token counts, from a reply checked to be a chat completion. */
export function readCompletion(body: unknown): { text: string; usage: { prompt: number; completion: number } } {
  const parsed = ChatCompletionSchema.safeParse(body);
  if (!parsed.success) {
    throw new NotAChatCompletion(
      `the reply is not an OpenAI-compatible chat completion; check the base URL (it usually ends in /v1). It was ${sample(body)}`,
    );
  }
  const { choices, usage } = parsed.data;
  return {
    text: choices[0]?.message?.content ?? '',
    usage: { prompt: usage?.prompt_tokens ?? 0, completion: usage?.completion_tokens ?? 0 },
  };
}

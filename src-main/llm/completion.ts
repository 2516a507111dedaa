import { z } from 'zod';
import { headOf } from '../common/text-head';

const ContentParts = z.array(z.object({ type: z.string(), text: z.string().nullish() }));

/**
 * The part of an OpenAI chat completion that Deskhand reads. Lenient where endpoints differ (no usage,
 * null content, no choices at all), strict where a reply that lacks it cannot be a chat completion.
 */
const ChatCompletionSchema = z.object({
  choices: z.array(
    z.object({
      // Some endpoints send the content as a list of parts (text, and e.g. a model's thinking).
      message: z
        .object({
          content: z.union([z.string(), ContentParts]).nullish(),
          // Only read to explain an unusable reply: sent oddly, they are ignored.
          refusal: z.string().nullish().catch(null),
          tool_calls: z.array(z.unknown()).nullish().catch(null),
        })
        .nullish(),
      finish_reason: z.string().nullish().catch(null),
    }),
  ),
  // Usage only feeds the cost display: an endpoint that reports it oddly still answers.
  usage: z
    .object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() })
    .nullish()
    .catch(null),
});

/** A 200 reply that is not a chat completion: a wrong base URL (a web page, another API), so not worth retrying. */
export class NotAChatCompletion extends Error {}

const SAMPLE_CHARS = 60;

/** The start of `text`, on one line. */
function clip(text: string, max = SAMPLE_CHARS): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${headOf(line, max)}…` : line;
}

/** What arrived instead, in a few words. */
function sample(body: unknown): string {
  if (body === null || body === undefined || body === '') return 'an empty body';
  return typeof body === 'string' ? `text: ${clip(body)}` : clip(JSON.stringify(body));
}

type Choice = z.infer<typeof ChatCompletionSchema>['choices'][number];

function textOf(content: string | z.infer<typeof ContentParts> | null | undefined): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

/**
 * Why the reply's text may be unusable, when the endpoint said so: a refusal, a reply cut at the output
 * limit or withheld by a filter, a tool call instead of text. A bare "the reply is empty" hides all four.
 */
function noteOf(choice: Choice | undefined): string | undefined {
  if (!choice) return 'the endpoint sent no choices';
  const refusal = choice.message?.refusal?.trim();
  if (refusal) return `the model refused: ${clip(refusal, 200)}`;
  if (choice.finish_reason === 'length') return "the reply was cut off at the model's output limit (finish_reason \"length\")";
  if (choice.finish_reason === 'content_filter') return 'the endpoint\'s content filter withheld the reply (finish_reason "content_filter")';
  if (choice.message?.tool_calls?.length) return 'the model called a tool instead of answering with the JSON object';
  return undefined;
}

/** The answer's text and token counts, from a reply checked to be a chat completion. */
export function readCompletion(body: unknown): { text: string; usage: { prompt: number; completion: number }; note?: string } {
  const parsed = ChatCompletionSchema.safeParse(body);
  if (!parsed.success) {
    throw new NotAChatCompletion(
      `the reply is not an OpenAI-compatible chat completion; check the base URL (it usually ends in /v1). It was ${sample(body)}`,
    );
  }
  const { choices, usage } = parsed.data;
  const note = noteOf(choices[0]);
  return {
    text: textOf(choices[0]?.message?.content),
    usage: { prompt: usage?.prompt_tokens ?? 0, completion: usage?.completion_tokens ?? 0 },
    ...(note ? { note } : {}),
  };
}

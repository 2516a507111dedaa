import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { wellFormed } from '../common/text-head';

/**
 * The messages with their texts made well-formed Unicode. A lone half of a surrogate pair (an emoji cut
 * in two by some limit on the way: a window title, a command's output, a quoted action) makes hosted
 * endpoints refuse the whole request as unparsable JSON, so it goes as U+FFFD instead.
 */
export function wellFormedMessages(messages: readonly ChatCompletionMessageParam[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    const { content } = message;
    if (typeof content === 'string') return { ...message, content: wellFormed(content) };
    if (!Array.isArray(content)) return message;
    const parts = content.map((part) => ('text' in part && typeof part.text === 'string' ? { ...part, text: wellFormed(part.text) } : part));
    // Each part keeps its type, so the list suits the message it came from.
    return { ...message, content: parts } as ChatCompletionMessageParam;
  });
}

import type { ChatMessage } from '../llm/model-client';
import { headOf } from '../common/text-head';

/**
 * Text the model wrote, the screen showed or a tool returned goes back to the model as data: one line,
 * capped, and with '<' replaced so it cannot close or open the prompt's <data> tags.
 */
export function asData(text: string, max = 600): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  const cut = oneLine.length > max ? `${headOf(oneLine, max)}… (cut)` : oneLine;
  return cut.replace(/</g, '‹');
}

/** A cut that would leave at most this much of a first line moves on to the next line. */
const PARTIAL_LINE_CHARS = 200;

/**
 * Tool output as data with its lines kept: the last `max` characters (a long output's end is where the
 * result or the error usually is), after a note of how much was left out before it; '<' replaced as in
 * asData.
 */
export function dataTail(text: string, max: number): string {
  const whole = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '');
  let start = Math.max(0, whole.length - max);
  if (start > 0) {
    const lineStart = whole.indexOf('\n', start) + 1;
    if (lineStart > 0 && lineStart - start <= PARTIAL_LINE_CHARS) start = lineStart;
    else if (/[\uDC00-\uDFFF]/.test(whole[start] ?? '')) start++;
  }
  const kept = start > 0 ? `(${start} of ${whole.length} characters left out before this)\n${whole.slice(start)}` : whole;
  return kept.replace(/</g, '‹');
}

/** The user's own words keep their lines, but cannot close the <data> block they sit in. */
export function userText(text: string): string {
  return text.replace(/<\/?data\b/gi, (tag) => tag.replace('<', '‹'));
}

export interface PromptImage {
  dataUrl: string;
}

/** A system message (stable across steps) and one user message with text and images. */
export function buildMessages(system: string, user: string, images: readonly PromptImage[]): ChatMessage[] {
  const content = images.length
    ? [
        { type: 'text' as const, text: user },
        ...images.map((image) => ({ type: 'image_url' as const, image_url: { url: image.dataUrl, detail: 'high' as const } })),
      ]
    : user;
  return [
    { role: 'system', content: system },
    { role: 'user', content },
  ];
}

/** The prompt's text parts, for the step detail view (images left out). */
export function promptTextOf(messages: readonly ChatMessage[]): string {
  return messages
    .map((message) => {
      const content = message.content;
      const text =
        typeof content === 'string'
          ? content
          : Array.isArray(content)
            ? content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '[image]')).join('\n')
            : '';
      return `### ${message.role}\n${text}`;
    })
    .join('\n\n');
}

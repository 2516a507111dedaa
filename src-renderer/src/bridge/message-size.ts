import { MAX_MESSAGE_BYTES } from '../../../src-main/protocol';

/** Why `text` cannot be sent (larger than the host takes), or null. */
export function tooLargeToSend(text: string): string | null {
  // A UTF-8 character takes at most 3 bytes per UTF-16 unit: most messages need no counting.
  if (text.length * 3 <= MAX_MESSAGE_BYTES) return null;
  const bytes = new TextEncoder().encode(text).length;
  if (bytes <= MAX_MESSAGE_BYTES) return null;
  const kib = (count: number): string => `${Math.ceil(count / 1024).toLocaleString('en')} KB`;
  return `That is too large to send to Deskhand (${kib(bytes)}; at most ${kib(MAX_MESSAGE_BYTES)}): shorten what was typed or pasted.`;
}

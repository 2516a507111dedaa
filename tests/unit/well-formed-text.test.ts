import { afterEach, describe, expect, it } from 'vitest';
import { cutWithEllipsis, oneLineHead, wellFormed } from '../../src-main/common/text-head';
import { ModelClient } from '../../src-main/llm/model-client';
import { titleFrom } from '../../src-main/memory/session-store';
import { describeAction } from '../../src-main/protocol';
import { startModelServer, type ModelServer } from '../fixtures/model-server';

const LONE_HALF = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const EMOJI = '😀';

/** Texts with an emoji at every position around `max`, where a cut might split it. */
function emojiAround(max: number): string[] {
  return Array.from({ length: 8 }, (_, shift) => `${'a'.repeat(max - 5 + shift)}${EMOJI}${'b'.repeat(10)}`);
}

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('text cut for display and prompts never splits an emoji', () => {
  it('wellFormed replaces each lone half of a surrogate pair and keeps whole pairs', () => {
    expect(wellFormed(`a\uD83Db`)).toBe('a\uFFFDb');
    expect(wellFormed(`a\uDE00b`)).toBe('a\uFFFDb');
    expect(wellFormed(`end\uD83D`)).toBe('end\uFFFD');
    expect(wellFormed(`${EMOJI}\uDE00${EMOJI}`)).toBe(`${EMOJI}\uFFFD${EMOJI}`);
    expect(wellFormed(`plain ${EMOJI} text`)).toBe(`plain ${EMOJI} text`);
  });

  it('cutWithEllipsis and oneLineHead stay within max and whole', () => {
    for (const text of emojiAround(40)) {
      for (const cut of [cutWithEllipsis(text, 40), oneLineHead(text, 40)]) {
        expect(cut.length).toBeLessThanOrEqual(40);
        expect(cut.endsWith('…')).toBe(true);
        expect(cut).not.toMatch(LONE_HALF);
      }
    }
  });

  it("a session's title from a long request with an emoji at the cut", () => {
    for (const request of emojiAround(80)) {
      const title = titleFrom(request);
      expect(title.length).toBeLessThanOrEqual(80);
      expect(title).not.toMatch(LONE_HALF);
    }
  });

  it('an action typed with an emoji at the quote\'s cut is described whole (the description goes into prompts)', () => {
    for (const text of emojiAround(60)) {
      const described = describeAction({ function: 'type_text', args: { text } });
      expect(described).toContain('…');
      expect(described).not.toMatch(LONE_HALF);
    }
  });
});

describe('the model client sends well-formed text', () => {
  it('sends a lone half of a surrogate pair as U+FFFD, so the endpoint takes the request', async () => {
    server = await startModelServer({ name: 'lone-half', steps: [{ content: 'ok' }] });
    const client = new ModelClient({ baseUrl: server.baseUrl, apiKey: 'k', model: 'm', jsonMode: false, maxRetries: 0, timeoutMs: 10_000 });
    const answer = await client.complete([
      { role: 'system', content: 'window title: Inbox \uD83D' },
      { role: 'user', content: [{ type: 'text', text: `output ${EMOJI} cut \uDE00 here` }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
    ]);
    expect(answer.text).toBe('ok');
    expect(server.failures).toEqual([]);
    expect(server.requests[0]?.text).toBe(`window title: Inbox \uFFFD\noutput ${EMOJI} cut \uFFFD here`);
    expect(server.requests[0]?.images).toBe(1);
  });
});

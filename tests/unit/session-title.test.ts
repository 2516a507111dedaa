import { describe, expect, it } from 'vitest';
import { HostCommand, MAX_SESSION_TITLE_CHARS, SessionTitle } from '../../src-main/protocol';

/** The message a title is refused with, or null when it is taken. */
function refusal(title: unknown): string | null {
  const parsed = SessionTitle.safeParse(title);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'refused without a message');
}

describe('a session title the user gives (SessionTitle)', () => {
  it('is taken trimmed, in any script, up to the limit', () => {
    expect(SessionTitle.parse('  Invoices by date  ')).toBe('Invoices by date');
    expect(SessionTitle.parse('Rechnungen für März · 請求書 · 🧾')).toBe('Rechnungen für März · 請求書 · 🧾');
    expect(SessionTitle.parse('x'.repeat(MAX_SESSION_TITLE_CHARS))).toHaveLength(MAX_SESSION_TITLE_CHARS);
    // Spaces around it do not count towards the limit.
    expect(SessionTitle.parse(` ${'x'.repeat(MAX_SESSION_TITLE_CHARS)} `)).toHaveLength(MAX_SESSION_TITLE_CHARS);
  });

  it('is refused, not cut, when empty or too long', () => {
    for (const empty of ['', '   ', '\n\t ', '\u00a0']) expect(refusal(empty), JSON.stringify(empty)).toBe('the title is empty');
    // Characters that show nothing (zero-width spaces, a soft hyphen) make no title either: the list would show a blank.
    for (const invisible of ['\u200b', ' \u200b\u200c ', '\u00ad\ufeff', '\u2060']) expect(refusal(invisible), JSON.stringify(invisible)).toBe('the title is empty');
    expect(refusal('x'.repeat(MAX_SESSION_TITLE_CHARS + 1))).toBe(`the title is too long: at most ${MAX_SESSION_TITLE_CHARS} characters`);
  });

  it('is refused when it holds control characters, line breaks or text-direction overrides', () => {
    for (const title of ['two\nlines', 'a\ttab', 'a\rreturn', 'bell\u0007', 'escape\u001b[31m red', 'del\u007f', 'c1\u0085', 'line\u2028sep', 'evil\u202Egnp.exe', 'iso\u2066late\u2069']) {
      expect(refusal(title), JSON.stringify(title)).toBe('the title may not hold control characters such as tabs or line breaks');
    }
    expect(refusal(42)).not.toBeNull();
    expect(refusal(null)).not.toBeNull();
  });
});

describe('the session.rename command', () => {
  const rename = (fields: Record<string, unknown>) => HostCommand.safeParse({ type: 'session.rename', id: 'r1', sessionId: 's1', title: 'Tidy', ...fields });

  it('carries a session id and the title as checked', () => {
    expect(rename({ title: '  Tidy the desktop ' })).toEqual({ success: true, data: { type: 'session.rename', id: 'r1', sessionId: 's1', title: 'Tidy the desktop' } });
  });

  it('is refused without a session id or title, with a bad one, or with a field it does not know', () => {
    expect(rename({ sessionId: undefined }).success).toBe(false);
    expect(rename({ sessionId: '' }).success).toBe(false);
    expect(rename({ sessionId: 'x'.repeat(65) }).success).toBe(false);
    expect(rename({ title: undefined }).success).toBe(false);
    expect(rename({ title: ' ' }).success).toBe(false);
    expect(rename({ request: 'and rename it' }).success).toBe(false);
  });
});

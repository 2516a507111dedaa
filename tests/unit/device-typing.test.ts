import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ControlCharacterError, forbiddenControl, typeText, typingPieces } from '../../src-main/device/typing';

// Every way text leaves the device client, recorded instead of sent: a refused text must reach none.
const sent = vi.hoisted(() => [] as string[]);
vi.mock('../../src-main/device/clipboard', () => ({
  findClipboardTool: async () => (sent.push('find clipboard'), { kind: 'xsel', path: 'xsel' }),
  primaryPasteApp: () => false,
  setSelections: async () => void sent.push('set clipboard'),
}));
vi.mock('../../src-main/device/input', () => ({
  pressChord: async () => void sent.push('press keys'),
  tapKey: async () => void sent.push('tap key'),
  typeWithNut: async () => void sent.push('type with nut'),
}));
vi.mock('../../src-main/device/windows', () => ({
  windowIds: async () => ({ ids: [], active: null }),
  getWindow: async () => {
    throw new Error('no window');
  },
}));
vi.mock('../../src-main/device/exec', () => ({
  hasCommand: async () => (sent.push('look up a command'), true),
  runFile: async () => (sent.push('run a program'), ''),
}));

describe('typing pieces', () => {
  it('cut at 32 characters and right before every line break, so each Enter comes after a check', () => {
    expect(typingPieces('ls\nrm tmp\n')).toEqual(['ls', '\nrm tmp', '\n']);
    expect(typingPieces(`${'a'.repeat(40)}\n`)).toEqual(['a'.repeat(32), 'a'.repeat(8), '\n']);
    expect(typingPieces('\n\nx')).toEqual(['\n', '\nx']);
    expect(typingPieces('')).toEqual([]);
  });

  it('never split a character made of two UTF-16 units', () => {
    const pieces = typingPieces('😀'.repeat(33), 32);
    expect(pieces.map((piece) => [...piece].length)).toEqual([32, 1]);
    expect(pieces.join('')).toBe('😀'.repeat(33));
  });
});

describe('control characters in text to type', () => {
  beforeEach(() => {
    sent.length = 0;
  });

  it('finds C0 controls, DEL and C1 controls, but lets line breaks, tabs and other text through', () => {
    for (const control of ['\u0000', '\u0003', '\u001b', '\r', '\u007f', '\u0080', '\u009b', '\u009f']) {
      expect(forbiddenControl(`echo a${control}b`)).toBe(control);
    }
    expect(forbiddenControl('ls -l\n\tGrüße 😀 <&> \u00a0\u2028\u200b')).toBeUndefined();
    expect(forbiddenControl('a\u001bb\u0003')).toBe('\u001b'); // the first one
  });

  it('refuses such text in every mode, naming the character, before anything is sent', async () => {
    const texts = ['echo hi\u001b[201~\n', 'stop\u0003', `${'a'.repeat(1_500)}\u009b`, 'x\u0000'];
    for (const mode of ['auto', 'type', 'paste'] as const) {
      for (const text of texts) {
        const typing = typeText(text, mode);
        await expect(typing).rejects.toBeInstanceOf(ControlCharacterError);
        await expect(typing).rejects.toThrow(/^the text holds the control character U\+00(1B|03|9B|00), which type_text neither types nor pastes/);
      }
    }
    expect(sent).toEqual([]);
  });

  it('takes a CR LF or CR line break as Enter, not as a control character', async () => {
    await expect(typeText('ls\r\npwd\r', 'paste')).resolves.toBe('paste');
    expect(sent).toContain('set clipboard');
  });
});

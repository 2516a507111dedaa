import { describe, expect, it } from 'vitest';
import { typingPieces } from '../../src-main/device/typing';

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

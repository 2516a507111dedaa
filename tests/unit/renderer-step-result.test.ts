import { describe, expect, it } from 'vitest';
import { plainText } from '../../src-renderer/src/components/plainText';
import { commandSummary, resultParts, resultSummary } from '../../src-renderer/src/components/stepResult';

const output = (fields: Record<string, unknown>): string =>
  JSON.stringify({ exit_code: 0, stdout: '', stderr: '', truncated: false, timed_out: false, signal: null, duration_ms: 33, ...fields });

describe('a step result for people', () => {
  it('summarises a command: how it ended, how long it took, and the first line of what it printed', () => {
    expect(resultSummary(output({}))).toBe('exit 0 · 33 ms · no output');
    expect(resultSummary(output({ stdout: '\nfirst\nsecond\n' }))).toBe('exit 0 · 33 ms · first (3 lines)');
    // A failure leads with its errors.
    expect(resultSummary(output({ exit_code: 2, stdout: 'partial', stderr: 'ls: cannot access x\n', duration_ms: 1_500 }))).toBe(
      'exit 2 · 1.5 s · ls: cannot access x',
    );
    expect(resultSummary(output({ exit_code: null, timed_out: true, stdout: 'x'.repeat(400), truncated: true }))).toBe(
      `timed out · 33 ms · ${'x'.repeat(160)}… · output cut`,
    );
    expect(commandSummary({ exit_code: null, signal: 'SIGTERM', stdout: '', stderr: '', truncated: false })).toBe('killed by SIGTERM · no output');
  });

  it('keeps every other line as it is, one part per action of a sequence', () => {
    const result = ['clicked at (10, 20)', output({ stdout: 'hi' }), '{"not": "a command"}', '{broken'].join('\n');
    expect(resultParts(result).map((part) => part.kind)).toEqual(['text', 'command', 'text', 'text']);
    expect(resultSummary(result)).toBe('clicked at (10, 20)\nexit 0 · 33 ms · hi\n{"not": "a command"}\n{broken');
  });
});

describe('plainText', () => {
  it("drops the Markdown marks models use most, and keeps single * and _ that are text", () => {
    expect(plainText('The file says **hi**.')).toBe('The file says hi.');
    expect(plainText('## Done\n- renamed `a.pdf`\n- see [the log](https://example.com/log)')).toBe('Done • renamed a.pdf • see the log');
    expect(plainText('2*3*4 is in file_name_1, __as Markdown renders it__')).toBe('2*3*4 is in file_name_1, as Markdown renders it');
  });
});

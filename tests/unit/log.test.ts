import { afterEach, describe, expect, it, vi } from 'vitest';
import { logError, scrubLogsWith } from '../../src-main/common/log';

afterEach(() => vi.restoreAllMocks());

describe('the host log', () => {
  it('replaces a running host\'s secrets in every line, errors and their stacks included, until it stops', () => {
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => lines.push(line));
    const stop = scrubLogsWith((text) => text.split('sk-secret-123456').join('[redacted]'));
    logError('[deskhand] the round failed:', new Error('401 from https://u:sk-secret-123456@proxy/v1'));
    logError(`[agent] key ${'sk-secret-123456'} refused`);
    expect(lines[0]).toMatch(/^\[deskhand\] the round failed: Error: 401 from https:\/\/u:\[redacted\]@proxy\/v1\n\s+at /);
    expect(lines[1]).toBe('[agent] key [redacted] refused');
    stop();
    logError('after sk-secret-123456');
    expect(lines[2]).toBe('after sk-secret-123456');
  });
});

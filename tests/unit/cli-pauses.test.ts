import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CliPauses } from '../../src-main/cli/pauses';
import type { HostEvent } from '../../src-main/protocol';

const paused = (detail: string): HostEvent => ({ kind: 'status.changed', sessionId: 's1', status: 'paused', detail });
const running: HostEvent = { kind: 'status.changed', sessionId: 's1', status: 'running', detail: 'Resumed' };
const tick = () => new Promise((done) => setImmediate(done));

function harness(interactive: boolean) {
  const input = new PassThrough();
  const written: string[] = [];
  const resumed: string[] = [];
  let stops = 0;
  const pauses = new CliPauses({
    interactive,
    input,
    write: (text) => written.push(text),
    resume: async (sessionId) => {
      resumed.push(sessionId);
    },
    stop: () => stops++,
  });
  return { pauses, input, written, resumed, stops: () => stops };
}

describe('CliPauses', () => {
  it('on a terminal, says why the run paused and resumes it on Enter, once per Enter', async () => {
    const { pauses, input, written, resumed, stops } = harness(true);
    pauses.onEvent(running);
    expect(written).toEqual([]);
    pauses.onEvent(paused('Only 3 MB free on the disk'));
    // Paused again before Enter (the reason changed): said, but one Enter still resumes once.
    pauses.onEvent(paused('The disk is full'));
    expect(written).toEqual([
      'deskhand: paused: Only 3 MB free on the disk.\n',
      'deskhand: press Enter to resume, Ctrl+C to stop.\n',
      'deskhand: paused: The disk is full.\n',
    ]);
    input.write('\n');
    await tick();
    expect(resumed).toEqual(['s1']);
    input.write('\n');
    await tick();
    expect(resumed).toEqual(['s1']);
    pauses.onEvent(paused('Only 3 MB free on the disk'));
    input.write('\n');
    await tick();
    expect(resumed).toEqual(['s1', 's1']);
    expect(stops()).toBe(0);
    expect(pauses.stoppedForPause).toBe(false);
    pauses.close();
  });

  it('without a terminal, stops the run (nobody could resume it) and says why, once', () => {
    const { pauses, written, resumed, stops } = harness(false);
    pauses.onEvent(paused('Only 3 MB free on the disk'));
    pauses.onEvent(paused('Only 2 MB free on the disk'));
    expect(stops()).toBe(1);
    expect(pauses.stoppedForPause).toBe(true);
    expect(written).toEqual(['deskhand: the run paused (Only 3 MB free on the disk), and with no terminal to resume it from it is stopped.\n']);
    expect(resumed).toEqual([]);
  });

  it('reports a resume the host refused instead of dropping it', async () => {
    const input = new PassThrough();
    const written: string[] = [];
    const pauses = new CliPauses({
      interactive: true,
      input,
      write: (text) => written.push(text),
      resume: () => Promise.reject(new Error('this session is running and not paused')),
      stop: () => undefined,
    });
    pauses.onEvent(paused('You took the mouse'));
    input.write('\n');
    await tick();
    await tick();
    expect(written.at(-1)).toBe('deskhand: could not resume: this session is running and not paused\n');
    pauses.close();
  });
});

describe('CliPauses: the input ends (Ctrl+D)', () => {
  it('while a pause waits for Enter: the run is stopped (no Enter can come any more), not left waiting', async () => {
    const { pauses, input, written, stops } = harness(true);
    pauses.onEvent(paused('Only 3 MB free on the disk'));
    input.end();
    await tick();
    expect(stops()).toBe(1);
    expect(pauses.stoppedForPause).toBe(true);
    expect(written.at(-1)).toBe('deskhand: the input was closed, so nothing can resume the run: it is stopped.\n');
    pauses.close();
  });

  it('before a later pause: that one stops the run at once', async () => {
    const { pauses, input, resumed, stops } = harness(true);
    pauses.onEvent(paused('Only 3 MB free on the disk'));
    input.write('\n');
    await tick();
    expect(resumed).toEqual(['s1']);
    input.end();
    await tick();
    expect(stops()).toBe(0);
    pauses.onEvent(paused('Only 2 MB free on the disk'));
    expect(stops()).toBe(1);
    expect(pauses.stoppedForPause).toBe(true);
    pauses.close();
  });

  it('closed as the run ends: says nothing, stops nothing', () => {
    const { pauses, written, stops } = harness(true);
    pauses.onEvent(paused('You took the mouse'));
    const before = written.length;
    pauses.close();
    expect(written).toHaveLength(before);
    expect(stops()).toBe(0);
    expect(pauses.stoppedForPause).toBe(false);
  });
});

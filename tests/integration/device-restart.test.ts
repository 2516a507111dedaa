import { describe, expect, it } from 'vitest';
import { replies, runRequest } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

const { app, hostTo, host } = replies;

const startHarness = harnessPerTest();

describe('the device client dies mid-run', () => {
  it('records an ERROR step, starts a new device client, and the session goes on', async () => {
    const harness = await startHarness(
      {
        name: 'crash',
        steps: [
          hostTo('xterm', 'press tab'),
          app({ Function: 'hotkey', Args: { keys: ['tab'] }, Status: 'CONTINUE' }),
          { ...app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }), expect: { contains: ['Your last step failed'] } },
          app({ Function: '', Status: 'FINISH', Comment: 'recovered' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      // The stand-in device exits (as an X error would abort it) when asked to press a key.
      { deviceEnv: { DESKHAND_FAKE_DEVICE_CRASH_ON: 'hotkey' } },
    );
    const { outcome, steps } = await runRequest(harness.host, 'press tab');
    expect(outcome).toEqual({ status: 'finished', result: 'done' });
    expect(steps[1]).toMatchObject({ status: 'ERROR', actionText: 'Press tab' });
    expect(steps[1]?.error).toMatch(/hotkey failed: .*(closed|exit)/i);
    // The next step had a fresh device client: its screenshot and action went through.
    expect(steps[2]).toMatchObject({ status: 'CONTINUE', result: 'wait done' });
    expect(steps[2]?.screenshot).not.toBeNull();
  });
});

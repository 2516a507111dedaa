import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { replies, runRequest, startHostHarness, type HostHarness } from '../support/host-harness';

/**
 * Every action at a point names the screenshot the model saw in that step (the AppAgent's window
 * screenshot), so the device client can refuse it when its last screenshot is another: it was restarted
 * in between, or someone else took one.
 */

const { app, hostTo, host } = replies;

let harness: HostHarness | null = null;
let dataDir: string | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = null;
});

interface ShotLine {
  tool: string;
  screenshot: string;
  args?: Record<string, unknown>;
}

function shotLog(file: string): ShotLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ShotLine);
}

describe('actions name the screenshot their coordinates are pixels of', () => {
  it("passes the step's window screenshot with each action at a point, a sequence's included", async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'deskhand-test-'));
    const shots = join(dataDir, 'shots.jsonl');
    harness = await startHostHarness(
      {
        name: 'screenshot ids',
        steps: [
          hostTo('mousepad', 'click and type'),
          app({ Function: 'click', Args: { x: 10, y: 10 }, Status: 'CONTINUE' }),
          app({
            Function: '',
            Status: 'CONTINUE',
            Actions: [
              { Function: 'click', Args: { x: 20, y: 20 } },
              { Function: 'type_text', Args: { text: 'hello', x: 30, y: 30 } },
              { Function: 'hotkey', Args: { keys: ['tab'] } },
            ],
          }),
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { dataDir, deviceEnv: { DESKHAND_FAKE_DEVICE_SHOT_LOG: shots } },
    );
    const { outcome } = await runRequest(harness.host, 'click and type');
    expect(outcome).toEqual({ status: 'finished', result: 'done' });
    const log = shotLog(shots);
    const named = log.filter((line) => line.tool !== 'screenshot');
    expect(named.map((line) => line.tool)).toEqual(['click', 'click', 'type_text']);
    for (const action of named) {
      const index = log.indexOf(action);
      const shot = log.slice(0, index).findLast((line) => line.tool === 'screenshot');
      expect(action.screenshot).toBe(shot?.screenshot);
      expect(shot?.args).toEqual({ window_id: '0x200002' });
    }
    expect(new Set(named.map((line) => line.screenshot)).size).toBe(2);
    expect(harness.deviceActions().map((action) => action.tool)).toEqual(['focus_window', 'click', 'click', 'type_text', 'hotkey']);
  });

  it('does not click when the device client forgot the screenshot, and clicks after the next step looked again', async () => {
    harness = await startHostHarness(
      {
        name: 'restarted device',
        steps: [
          hostTo('xterm', 'click'),
          app({ Function: 'click', Args: { x: 10, y: 10 }, Status: 'CONTINUE' }),
          {
            ...app({ Function: 'click', Args: { x: 10, y: 10 }, Status: 'CONTINUE' }),
            expect: { contains: ['the device client was restarted since that screenshot'] },
          },
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { deviceEnv: { DESKHAND_FAKE_DEVICE_FORGETS_BEFORE: 'click#1' } },
    );
    const { outcome, steps } = await runRequest(harness.host, 'click');
    expect(outcome).toEqual({ status: 'finished', result: 'done' });
    expect(steps[1]).toMatchObject({ status: 'ERROR', actionText: 'Click at (10, 10)' });
    expect(steps[1]?.error).toMatch(/^click not run: the device client was restarted since that screenshot.*Look at a new screenshot before acting at a point/);
    expect(steps[2]).toMatchObject({ status: 'CONTINUE' });
    expect(harness.deviceActions().filter((action) => action.tool === 'click')).toEqual([{ tool: 'click', args: { x: 10, y: 10 } }]);
  });
});

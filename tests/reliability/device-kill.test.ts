import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent, StepView } from '../../src-main/protocol';
import type { ScenarioStep } from '../fixtures/model-server';
import { replies } from '../support/host-harness';
import { closedAfterEach } from '../support/host-per-test';
import { isolatedHome, roundWithin, startReliabilityHost, startSession, waitUntil } from '../support/reliability-harness';
import { alive, childProcesses } from '../support/reliability-processes';
import { seeded, seedFromEnv, soaking, type Random } from '../support/reliability-random';
import { startXterm, startXvfb, type XDisplay, type XProgram } from '../support/xvfb';

// The device client killed at random points of a run (kill -9 of its pid, or the stand-in crashing on
// a tool as an X error would abort it): the host starts a new one, the failed step is a clear ERROR, and
// the session goes on to its end.
const SEED = seedFromEnv(0x5eed_0004);
const KILLS = soaking() ? 8 : 3;

const { app, hostTo, host } = replies;

const startRig = closedAfterEach(startReliabilityHost);

/**
 * Actions that do not move the pointer: the stand-in device starts a new client with the pointer at
 * (0, 0), which the takeover guard would rightly take for the user moving the mouse after a click
 * elsewhere (a real device client keeps the real pointer where it was).
 */
function actionStep(random: Random, delayMs: number): ScenarioStep {
  const action = random.pick([
    { Function: 'type_text', Args: { text: `line ${random.int(0, 999)}` } },
    { Function: 'hotkey', Args: { keys: ['shift'] } },
    { Function: 'wait', Args: { seconds: 0 } },
  ]);
  return { ...app({ ...action, Status: 'CONTINUE' }), delayMs };
}

/**
 * Kills the device client (found by its command line among this process's children) when the run has
 * made each of the given numbers of steps, after a random delay so the kill lands anywhere in a step.
 */
function killer(random: Random, events: HostEvent[], match: string, atSteps: number[]): { killed: number[]; stop(): void } {
  const killed: number[] = [];
  let next = 0;
  let armedAt: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = (): void => {
    if (stopped || next >= atSteps.length) return;
    const steps = events.filter((event) => event.kind === 'step.added').length;
    if (armedAt === null && steps >= (atSteps[next] as number)) armedAt = Date.now() + random.int(0, 120);
    if (armedAt !== null && Date.now() >= armedAt) {
      // Right after a kill the next client may not be there yet: try again on the next tick.
      const found = childProcesses(process.pid, match);
      for (const proc of found) {
        process.kill(proc.pid, 'SIGKILL');
        killed.push(proc.pid);
      }
      if (found.length) {
        next++;
        armedAt = null;
      }
    }
    timer = setTimeout(tick, 5);
  };
  tick();
  return {
    killed,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

function checkRun(steps: StepView[], kills: number): void {
  const errors = steps.filter((step) => step.status === 'ERROR');
  // Each kill costs at most the step in flight and, if it landed between a step's calls, the next one.
  expect(errors.length).toBeLessThanOrEqual(kills * 2);
  for (const step of errors) {
    expect(step.error).toMatch(/failed|closed|did not start|exit/i);
    expect(step.error).not.toMatch(/\n\s+at /);
  }
  // The run went on after the last kill: its last steps are the finish of the sub-task and of the round.
  expect(steps.at(-1)).toMatchObject({ agent: 'HostAgent', status: 'FINISH' });
}

describe(`the stand-in device client killed at random points (seed ${SEED})`, () => {
  it(`kill -9 of its pid ${KILLS} times: restarted each time, and the session finishes`, async () => {
    const random = seeded(SEED);
    const work = Array.from({ length: 12 * KILLS + 10 }, () => actionStep(random, random.int(0, 40)));
    const rig = await startRig(
      { name: 'device kills', steps: [hostTo('Terminal', 'work in the terminal'), ...work, app({ Function: '', Status: 'FINISH', Comment: 'done' }), host({ Status: 'FINISH', Comment: 'all done' })] },
      { config: { limits: { maxStepsPerRound: 1_000, maxConsecutiveErrors: 3, maxRepairs: 0 }, safety: { confirmation: 'never' } } },
    );
    const atSteps = Array.from({ length: KILLS }, (_, i) => 2 + i * 10 + random.int(0, 6));
    const kills = killer(random, rig.events, 'fake-device.ts', atSteps);
    const sessionId = await startSession(rig.host, 'work in the terminal', 'desktop');
    // Stop when the script runs out (the kills cost some of its steps): finish it once every kill landed.
    const outcome = await roundWithin(rig.host, 120_000, 'device kills').finally(() => kills.stop());
    expect(kills.killed.length).toBe(KILLS);
    expect(new Set(kills.killed).size).toBe(KILLS); // a new client each time
    expect(outcome.status).toBe('finished');
    checkRun(rig.host.store.steps(sessionId), KILLS);
    expect(await rig.host.endpoint.handle({ type: 'session.list', id: 'alive' })).toMatchObject({ ok: true });
  });

  it('crashing on one tool (as an X error aborts the client): each crash is an ERROR step, and the run goes on', async () => {
    const random = seeded(SEED + 1);
    const tool = random.pick(['type_text', 'hotkey', 'wait'] as const);
    const crashing = {
      type_text: { Function: 'type_text', Args: { text: 'hello' } },
      hotkey: { Function: 'hotkey', Args: { keys: ['tab'] } },
      wait: { Function: 'wait', Args: { seconds: 0 } },
    }[tool];
    const other = tool === 'hotkey' ? { Function: 'wait', Args: { seconds: 0 } } : { Function: 'hotkey', Args: { keys: ['shift'] } };
    const crashes = random.int(2, 4);
    const work = Array.from({ length: crashes }, () => [app({ ...crashing, Status: 'CONTINUE' }), app({ ...other, Status: 'CONTINUE' })]).flat();
    const rig = await startRig(
      { name: `crash on ${tool}`, steps: [hostTo('Terminal', 'press keys'), ...work, app({ Function: '', Status: 'FINISH', Comment: 'done' }), host({ Status: 'FINISH', Comment: 'all done' })] },
      { fakeDeviceEnv: { DESKHAND_FAKE_DEVICE_CRASH_ON: tool }, config: { limits: { maxConsecutiveErrors: 2, maxRepairs: 0 }, safety: { confirmation: 'never' } } },
    );
    const sessionId = await startSession(rig.host, 'press keys', 'desktop');
    expect(await roundWithin(rig.host, 60_000, `crash on ${tool}`)).toEqual({ status: 'finished', result: 'all done' });
    const steps = rig.host.store.steps(sessionId).filter((step) => step.agent === 'AppAgent');
    expect(steps.map((step) => step.status)).toEqual([...Array.from({ length: crashes }, () => ['ERROR', 'CONTINUE']).flat(), 'FINISH']);
    for (const step of steps.filter((candidate) => candidate.status === 'ERROR')) expect(step.error).toMatch(new RegExp(`${tool} failed: .*(closed|exit)`, 'i'));
    // Every action after a crash reached a fresh device client.
    expect(rig.deviceActions().filter((action) => action.tool === other.Function)).toHaveLength(crashes);
    rig.model.assertDone();
  });
});

describe('the real device client killed at random points', () => {
  let x: XDisplay;
  let xterm: XProgram;
  let home: string;
  beforeAll(async () => {
    x = await startXvfb({ width: 800, height: 600 });
    xterm = await startXterm(x, { geometry: '80x24+0+0' });
    home = mkdtempSync(join(tmpdir(), 'deskhand-home-'));
  });
  afterAll(async () => {
    await xterm?.stop();
    await x?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('kill -9 of its pid: a new client is started, the session goes on and finishes', async () => {
    const random = seeded(SEED + 2);
    const kills = Math.min(KILLS, 3);
    const work = Array.from({ length: 8 * kills + 8 }, () => ({ ...app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }), delayMs: random.int(0, 30) }));
    const rig = await startRig(
      { name: 'real device kills', steps: [hostTo('deskhand-xterm', 'wait a little'), ...work, app({ Function: '', Status: 'FINISH', Comment: 'done' }), host({ Status: 'FINISH', Comment: 'all done' })] },
      {
        deviceLaunch: 'real',
        env: { ...x.env, HOME: isolatedHome(home), OPENAI_API_KEY: 'test-key' },
        config: { limits: { maxStepsPerRound: 1_000, maxConsecutiveErrors: 3, maxRepairs: 0 }, safety: { confirmation: 'never' } },
      },
    );
    const atSteps = Array.from({ length: kills }, (_, i) => 2 + i * 7 + random.int(0, 4));
    const killing = killer(random, rig.events, 'src-main/device/main.ts', atSteps);
    const sessionId = await startSession(rig.host, 'wait a little', 'desktop');
    const outcome = await roundWithin(rig.host, 120_000, 'real device kills').finally(() => killing.stop());
    expect(killing.killed.length).toBe(kills);
    expect(outcome.status).toBe('finished');
    checkRun(rig.host.store.steps(sessionId), kills);
    // The last client is alive and serving; the killed ones are gone.
    await waitUntil('the killed clients to be gone', () => killing.killed.every((pid) => !alive(pid)));
    expect(childProcesses(process.pid, 'src-main/device/main.ts')).toHaveLength(1);
  });
});

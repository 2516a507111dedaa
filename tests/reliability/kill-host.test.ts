import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost } from '../../src-main/host/create-host';
import type { StepView } from '../../src-main/protocol';
import { startModelServer, type ScenarioStep } from '../fixtures/model-server';
import { fakeDeviceLaunch, replies } from '../support/host-harness';
import { isolatedHome, withDeadline } from '../support/reliability-harness';
import { seeded, seedFromEnv, soaking, type Random } from '../support/reliability-random';
import { startXvfb, type XDisplay } from '../support/xvfb';

// kill -9 of the host (the CLI, with the real device client on a private X display) at random points of
// a run, RUNS times: no step the CLI reported (step.added on stdout) is missing from the database, the
// database passes its integrity check, and the session comes back as interrupted and can be resumed.
const SEED = seedFromEnv(0x5eed_0003);
const RUNS = soaking() ? 20 : 3;

let x: XDisplay;
beforeAll(async () => {
  x = await startXvfb({ width: 800, height: 600 });
});
afterAll(async () => {
  await x?.stop();
});

interface Plan {
  run: number;
  mode: 'shell' | 'desktop';
  /** Kill after this many step.added lines, plus a random delay: so the kill lands anywhere in a step. */
  killAfterSteps: number;
  extraDelayMs: number;
  steps: ScenarioStep[];
}

function plan(random: Random, run: number): Plan {
  const mode = random.pick(['shell', 'desktop'] as const);
  const shell = (i: number): ScenarioStep => ({
    ...replies.app({ Function: 'execute_command', Args: { command: `echo step ${i} && sleep 0.0${random.int(0, 9)}` }, Status: 'CONTINUE' }),
    delayMs: random.int(0, 120),
  });
  const work = Array.from({ length: 40 }, (_, i) => shell(i));
  return {
    run,
    mode,
    killAfterSteps: random.int(1, 6),
    extraDelayMs: random.int(0, 250),
    steps: mode === 'desktop' ? [replies.hostTo('ShellAgent', 'count slowly'), ...work] : work,
  };
}

const random = seeded(SEED);
const plans = Array.from({ length: RUNS }, (_, run) => plan(random, run + 1));

interface Killed {
  dataDir: string;
  seen: StepView[];
  stderr: string;
}

async function runAndKill(p: Plan): Promise<Killed> {
  const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-kill-'));
  const model = await startModelServer({ name: `kill run ${p.run}`, steps: p.steps });
  const child = spawn(process.execPath, ['--import', 'tsx', resolve('src-main/cli/main.ts'), 'run', '--mode', p.mode, 'count slowly'], {
    env: { ...x.env, HOME: isolatedHome(dataDir), DESKHAND_DATA_DIR: dataDir, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted', DESKHAND_CONFIRM: 'never' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const seen: StepView[] = [];
  try {
    await withDeadline(
      new Promise<void>((done) => {
        let buffer = '';
        let killing = false;
        child.stdout.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          const lines = buffer.split('\n');
          buffer = lines.pop() ?? ''; // a line cut off by the kill is not a report
          for (const line of lines) {
            const event = JSON.parse(line) as { kind?: string; step?: StepView };
            if (event.kind === 'step.added' && event.step) seen.push(event.step);
          }
          if (!killing && seen.length >= p.killAfterSteps) {
            killing = true;
            setTimeout(() => {
              child.kill('SIGKILL');
              done();
            }, p.extraDelayMs);
          }
        });
        child.once('exit', () => done());
      }),
      60_000,
      `run ${p.run}: fewer than ${p.killAfterSteps} steps within 60 s; stderr:\n${stderr}`,
    );
  } finally {
    child.kill('SIGKILL');
    await exited;
    await model.close();
  }
  return { dataDir, seen, stderr };
}

describe(`kill -9 of the host at random points, ${RUNS} runs (seed ${SEED})`, () => {
  it.each(plans)('run $run ($mode mode, killed after $killAfterSteps steps + $extraDelayMs ms)', async (p) => {
    const { dataDir, seen, stderr } = await runAndKill(p);
    try {
      expect(seen.length, stderr).toBeGreaterThanOrEqual(Math.min(p.killAfterSteps, 1));

      const raw = new Database(join(dataDir, 'deskhand.sqlite'));
      try {
        expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(raw.pragma('foreign_key_check')).toEqual([]);
      } finally {
        raw.close();
      }

      const resumeModel = await startModelServer({
        name: 'resume',
        steps: [
          p.mode === 'shell'
            ? { ...replies.app({ Function: '', Status: 'FINISH', Comment: 'resumed and done' }), expect: { contains: ['count slowly'] } }
            : { ...replies.host({ Status: 'FINISH', Comment: 'resumed and done' }), expect: { contains: ['count slowly'] } },
        ],
      });
      const config = DeskhandConfig.parse({ models: { host: { baseUrl: resumeModel.baseUrl, model: 'scripted', maxRetries: 0 } } });
      const host = createHost({ dataDir, config, env: { ...process.env, OPENAI_API_KEY: 'x' }, deviceLaunch: fakeDeviceLaunch({}) });
      try {
        expect(host.interrupted).toHaveLength(1);
        const sessionId = host.interrupted[0]!;
        expect(host.store.getSession(sessionId)?.status).toBe('interrupted');
        const stored = host.store.steps(sessionId);
        // Every step the CLI reported was committed before it was reported: all there, the same.
        const byId = new Map(stored.map((step) => [step.id, step]));
        for (const step of seen) {
          const kept = byId.get(step.id);
          expect(kept, `step ${step.index} (${step.id}) reported but not in the database`).toBeDefined();
          expect({ index: kept!.index, status: kept!.status, result: kept!.result }).toEqual({ index: step.index, status: step.status, result: step.result });
        }
        // At most the step being committed when the kill landed is there unreported; no gaps.
        expect(stored.length - seen.length).toBeLessThanOrEqual(1);
        expect(stored.map((step) => step.index)).toEqual(stored.map((_, index) => index));
        for (const step of stored) {
          if (step.screenshot) expect(existsSync(host.screenshots.pathOf(sessionId, step.screenshot.file)!), step.screenshot.file).toBe(true);
        }

        const resumed = await host.endpoint.handle({ type: 'session.resume', id: 'r', sessionId });
        expect(resumed).toMatchObject({ ok: true });
        expect(await withDeadline(host.sessions.running!, 30_000, 'the resumed round did not end')).toEqual({ status: 'finished', result: 'resumed and done' });
        expect(host.store.getSession(sessionId)).toMatchObject({ status: 'finished', roundCount: 2 });
        // The note that the request was cut off, then the resumed round's own step.
        const after = host.store.steps(sessionId);
        expect(after.length).toBe(stored.length + 2);
        expect(after[stored.length]).toMatchObject({ actionText: 'Resumed after an interruption', error: expect.stringMatching(/may or may not have run/) });
        expect(host.store.rounds(sessionId).map((round) => round.status)).toEqual(['interrupted', 'finished']);
        resumeModel.assertDone();
      } finally {
        await host.close();
        await resumeModel.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

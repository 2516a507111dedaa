// Figure 7: the host's resident memory after a 1,000-step run against before it (after a garbage
// collection each time; run with --expose-gc). The scripted model runs in its own process (it records
// every request, which is the fixture's memory, not the host's); the device client is a stand-in with
// screenshots of a real desktop's size (tests/support/bench-device.ts), in its own process too.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { deviceEnv } from '../../src-main/device/launch';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost, type Host } from '../../src-main/host/create-host';
import type { ScenarioStep } from '../fixtures/model-server';
import { emit, goal, info, note, runBench, sleep } from '../support/bench-stats';
import { replies } from '../support/host-harness';

const STEPS = 1_000;
const WARMUP = 60;

function action(i: number): ScenarioStep {
  const fields = [
    { Function: 'click', Args: { x: (i * 37) % 1280, y: (i * 53) % 800 } },
    { Function: 'type_text', Args: { text: `line ${i}: the quick brown fox jumps over the lazy dog` } },
    { Function: 'hotkey', Args: { keys: ['ctrl', 's'] } },
    { Function: 'wait', Args: { seconds: 0 } },
  ][i % 4] as Record<string, unknown>;
  return replies.app({ ...fields, Status: 'CONTINUE', Observation: `the terminal after step ${i}`, Thought: `step ${i}` });
}

/** One round of `total` steps: the hand-off, the actions, and the two FINISH steps. */
function round(total: number): ScenarioStep[] {
  return [
    replies.hostTo('Terminal', 'type the lines'),
    ...Array.from({ length: total - 3 }, (_, i) => action(i)),
    replies.app({ Function: '', Status: 'FINISH', Comment: 'typed' }),
    replies.host({ Status: 'FINISH', Comment: 'done' }),
  ];
}

async function startModel(scenarioFile: string): Promise<{ baseUrl: string; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve('tests/fixtures/model-server-cli.ts'), scenarioFile], { stdio: ['ignore', 'pipe', 'ignore'] });
  const line = await new Promise<string>((done, fail) => {
    createInterface({ input: child.stdout }).once('line', done);
    child.once('exit', (code) => fail(new Error(`the model server exited with ${code}`)));
  });
  const baseUrl = /^MODEL_BASE_URL=(\S+)$/.exec(line)?.[1];
  if (!baseUrl) throw new Error(`unexpected line from the model server: ${line}`);
  return { baseUrl, stop: () => void child.kill('SIGTERM') };
}

async function rssAfterGc(): Promise<{ rss: number; heap: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc (tests/bench/run.ts does)');
  for (let i = 0; i < 4; i++) {
    gc();
    await sleep(50);
  }
  const usage = process.memoryUsage();
  return { rss: usage.rss / 1024 / 1024, heap: usage.heapUsed / 1024 / 1024 };
}

async function runRound(host: Host, request: string): Promise<void> {
  const reply = await host.endpoint.handle({ type: 'session.start', id: request, request, mode: 'desktop' });
  if (reply.type !== 'reply' || !reply.ok) throw new Error(`start refused: ${JSON.stringify(reply)}`);
  const outcome = await host.sessions.running;
  if (outcome?.status !== 'finished') throw new Error(`the run ended ${JSON.stringify(outcome)}`);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-bench-memory-'));
  const scenarioFile = join(dataDir, 'scenario.json');
  writeFileSync(scenarioFile, JSON.stringify({ name: 'memory', steps: [...round(WARMUP), ...round(STEPS)] }));
  const model = await startModel(scenarioFile);
  const config = DeskhandConfig.parse({
    models: { host: { baseUrl: model.baseUrl, model: 'scripted', maxRetries: 0 } },
    limits: { maxStepsPerRound: 1_000, maxStepsPerSession: 10_000 },
    safety: { confirmation: 'never' },
  });
  const host = createHost({
    dataDir,
    config,
    env: { ...process.env, OPENAI_API_KEY: 'bench' },
    deviceLaunch: {
      command: process.execPath,
      args: ['--import', 'tsx', resolve('tests/support/bench-device.ts')],
      env: deviceEnv(process.env),
      cwd: process.cwd(),
    },
  });
  try {
    note(`warming up with ${WARMUP} steps ...`);
    await runRound(host, 'warm up');
    const before = await rssAfterGc();
    note(`${STEPS} steps ...`);
    const started = performance.now();
    await runRound(host, 'the long run');
    const seconds = (performance.now() - started) / 1000;
    const after = await rssAfterGc();
    emit([
      info('Resident memory before the run (after GC)', before.rss, 'MB'),
      info(`Resident memory after ${STEPS} steps (after GC)`, after.rss, 'MB'),
      info('JS heap growth over the run', after.heap - before.heap, 'MB'),
      info('Steps per second in that run (instant model and device)', STEPS / seconds, 'steps/s'),
      goal(`Resident memory growth over a ${STEPS}-step run`, after.rss - before.rss, 'MB', '<=', 50),
    ]);
  } finally {
    await host.close();
    model.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);

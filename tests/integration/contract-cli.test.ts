import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer, type Scenario } from '../fixtures/model-server';
import { replies } from '../support/host-harness';
import { startXvfb, type XDisplay } from '../support/xvfb';

/**
 * The command line's and the data folder's contract, black-box through the command people type:
 * `npx deskhand run "REQUEST"` (the built CLI; `npm run build` first), against the scripted model.
 */

let x: XDisplay;
beforeAll(async () => {
  x = await startXvfb({ width: 800, height: 600 });
});
afterAll(async () => {
  await x?.stop();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  events: Array<{ kind: string } & Record<string, unknown>>;
}

function npxDeskhand(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const child = spawn('npx', ['--no-install', 'deskhand', ...args], {
    env: { ...x.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DESKHAND_MODEL: '', DESKHAND_DATA_DIR: mkdtempSync(join(tmpdir(), 'deskhand-contract-cli-')), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) =>
    child.once('exit', (code) => {
      const lines = stdout.split('\n').filter((line) => line.trim());
      // One JSON object per line, nothing else on stdout.
      const events = lines.map((line) => {
        try {
          return JSON.parse(line) as Run['events'][number];
        } catch {
          throw new Error(`stdout line is not JSON: ${line}\nstderr: ${stderr}`);
        }
      });
      done({ code, stdout, stderr, events });
    }),
  );
}

let model: ModelServer | null = null;
async function withModel(scenario: Scenario, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run & { model: ModelServer }> {
  model = await startModelServer(scenario);
  try {
    const run = await npxDeskhand(args, { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted-key', ...env });
    return { ...run, model };
  } finally {
    await model.close();
  }
}

const shell = (command: string, status = 'CONTINUE', comment = '') => replies.app({ Function: 'execute_command', Args: { command }, Status: status, Comment: comment });
const outFile = (): string => join(mkdtempSync(join(tmpdir(), 'deskhand-contract-out-')), 'out.txt');

describe('npx deskhand run "REQUEST"', () => {
  it('prints one JSON line per event and exits 0 on FINISH', async () => {
    const run = await withModel({ name: 'finish', steps: [shell('', 'FINISH', 'all good')] }, ['run', '--mode', 'shell', 'say hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.length).toBeGreaterThan(2);
    expect(run.events.every((event) => typeof event.kind === 'string')).toBe(true);
    expect(run.events[0]?.kind).toBe('session.started');
    expect(run.events.at(-1)).toMatchObject({ kind: 'session.ended', status: 'finished' });
  });

  it('exits 1 on FAIL', async () => {
    const run = await withModel({ name: 'fail', steps: [shell('', 'FAIL', 'cannot')] }, ['run', '--mode', 'shell', 'do the impossible']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.events.at(-1)).toMatchObject({ kind: 'session.ended', status: 'failed' });
  });

  it('exits 2 on ERROR', async () => {
    const run = await withModel({ name: 'error', steps: Array.from({ length: 8 }, () => ({ content: 'no json here' })) }, ['run', '--mode', 'shell', 'break']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.events.at(-1)).toMatchObject({ kind: 'session.ended', status: 'error' });
  });

  it('--answer is repeatable: the answers go to the questions in order', async () => {
    const run = await withModel(
      {
        name: 'answers',
        steps: [
          replies.app({ Function: '', Status: 'PENDING', Questions: ['First name?', 'Last name?'] }),
          replies.app({ Function: '', Status: 'PENDING', Questions: ['City?'] }),
          { ...shell('', 'FINISH', 'ok'), expect: { contains: ['Q: "First name?" A: Ada', 'Q: "Last name?" A: Lovelace', 'Q: "City?" A: London'] } },
        ],
      },
      ['run', '--mode', 'shell', '--answer', 'Ada', '--answer', 'Lovelace', '--answer', 'London', 'who am I'],
    );
    expect(run.model.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
  });

  it('rejects confirmations by default (the command never runs) and --approve approves them', async () => {
    const rejected = outFile();
    const noFlag = await withModel(
      { name: 'reject', steps: [shell(`echo x > ${rejected}`), { ...shell('', 'FAIL', 'rejected'), expect: { contains: ['Rejected'] } }] },
      ['run', '--mode', 'shell', 'write it'],
    );
    expect(noFlag.code).toBe(1);
    expect(existsSync(rejected)).toBe(false);

    const approved = outFile();
    const withFlag = await withModel({ name: 'approve', steps: [shell(`echo yes > ${approved}`), shell('', 'FINISH', 'written')] }, ['run', '--approve', '--mode', 'shell', 'write it']);
    expect(withFlag.code, withFlag.stderr).toBe(0);
    expect(readFileSync(approved, 'utf8')).toBe('yes\n');
  });

  it('options may follow the request', async () => {
    const approved = outFile();
    const run = await withModel({ name: 'after', steps: [shell(`echo after > ${approved}`), shell('', 'FINISH', 'written')] }, ['run', 'write it', '--mode', 'shell', '--approve']);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(approved, 'utf8')).toBe('after\n');
  });

  it('--mode shell runs the ShellAgent alone; --mode desktop (the default) starts with the HostAgent', async () => {
    const shellRun = await withModel({ name: 'shell mode', steps: [shell('', 'FINISH', 'shell')] }, ['run', '--mode', 'shell', 'x']);
    expect(shellRun.code, shellRun.stderr).toBe(0);
    expect(shellRun.model.requests[0]?.text).toMatch(/ShellAgent/);
    expect(shellRun.model.requests[0]?.text).not.toMatch(/You are Deskhand's HostAgent/);

    for (const args of [['run', '--mode', 'desktop', 'x'], ['run', 'x']]) {
      const desktop = await withModel({ name: 'desktop mode', steps: [replies.host({ Status: 'FINISH', Comment: 'desktop' })] }, args);
      expect(desktop.code, desktop.stderr).toBe(0);
      expect(desktop.model.requests[0]?.text).toMatch(/You are Deskhand's HostAgent/);
      // The HostAgent sees the desktop.
      expect(desktop.model.requests[0]?.images).toBe(1);
    }
  });
});

describe('environment (section 8) and data directory (section 6)', () => {
  it('OPENAI_BASE_URL, OPENAI_API_KEY and DESKHAND_MODEL configure the model', async () => {
    const run = await withModel({ name: 'env', steps: [shell('', 'FINISH', 'ok')] }, ['run', '--mode', 'shell', 'x'], { DESKHAND_MODEL: 'contract-model-7' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.model.requests).toHaveLength(1);
    expect(run.model.requests[0]?.body.model).toBe('contract-model-7');
    expect(run.model.requests[0]?.headers.authorization).toBe('Bearer scripted-key');
  });

  it('DESKHAND_DATA_DIR holds the database and the screenshots', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-contract-data-'));
    const run = await withModel({ name: 'data dir', steps: [replies.host({ Status: 'FINISH', Comment: 'ok' })] }, ['run', 'x'], { DESKHAND_DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(join(dataDir, 'deskhand.sqlite')).size).toBeGreaterThan(0);
    const sessionDirs = readdirSync(join(dataDir, 'screenshots'));
    expect(sessionDirs).toHaveLength(1);
    expect(readdirSync(join(dataDir, 'screenshots', sessionDirs[0] as string)).length).toBeGreaterThan(0);
  });
});

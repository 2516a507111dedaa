import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost } from '../../src-main/host/create-host';
import { startModelServer, type ModelServer, type ScenarioStep } from '../fixtures/model-server';
import { spawnEntry } from '../support/entry-process';
import { fakeDeviceLaunch, replies } from '../support/host-harness';
import { isolatedHome, withDeadline } from '../support/reliability-harness';
import { startXvfb, type XDisplay } from '../support/xvfb';

// The API key never appears in the database, the data folder, the logs (the CLI's stdout and stderr)
// or an export, after a run with OPENAI_API_KEY set, through the CLI (`deskhand run`) and the real
// device client, as a user would run it.

let x: XDisplay;
beforeAll(async () => {
  x = await startXvfb({ width: 800, height: 600 });
});
afterAll(async () => {
  await x?.stop();
});

const shell = (command: string): ScenarioStep => replies.app({ Function: 'execute_command', Args: { command }, Status: 'CONTINUE' });

interface CliRun {
  key: string;
  dataDir: string;
  model: ModelServer;
  stdout: string;
  stderr: string;
  code: number | null;
}

async function runCli(steps: ScenarioStep[]): Promise<CliRun> {
  const key = `sk-test-${randomBytes(18).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-secrets-'));
  const model = await startModelServer({ name: 'secrets', steps });
  const cli = spawnEntry('src-main/cli/main.ts', ['run', 'show me my environment'], {
    ...x.env,
    // HOME: an empty one, so the commands' login shell does not run this machine's profile (see isolatedHome).
    HOME: isolatedHome(dataDir),
    DESKHAND_DATA_DIR: dataDir,
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: key,
    DESKHAND_CONFIRM: 'never',
  });
  const code = await withDeadline(cli.exited, 90_000, 'the CLI run did not end').catch((error: unknown) => {
    cli.child.kill('SIGKILL');
    throw error;
  });
  await model.close();
  return { key, dataDir, model, stdout: cli.stdout(), stderr: cli.stderr(), code };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Where the key shows up: every file of the data folder (the database and its WAL included), the logs and an export. */
async function leaks(run: CliRun): Promise<string[]> {
  const needles = [run.key, Buffer.from(run.key).toString('base64'), run.key.slice(8)];
  const found: string[] = [];
  const look = (where: string, bytes: Buffer | string): void => {
    const haystack = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
    const needle = needles.find((candidate) => haystack.includes(Buffer.from(candidate)));
    if (needle) found.push(`${where} contains ${needle === run.key ? 'the key' : 'a form of the key'}`);
  };
  for (const file of filesUnder(run.dataDir)) look(file.slice(run.dataDir.length + 1), readFileSync(file));
  look('stdout', run.stdout);
  look('stderr', run.stderr);
  // The export, read by a host opened on the same data folder afterwards.
  const config = DeskhandConfig.parse({ models: { host: { baseUrl: 'http://127.0.0.1:9/v1', model: 'scripted' } } });
  const host = createHost({ dataDir: run.dataDir, config, env: { ...process.env, OPENAI_API_KEY: run.key }, deviceLaunch: fakeDeviceLaunch({}) });
  try {
    for (const session of host.store.listSessions()) {
      const exported = await host.endpoint.handle({ type: 'session.export', id: 'e', sessionId: session.id });
      expect(exported).toMatchObject({ ok: true });
      look(`export of ${session.id}`, JSON.stringify(exported));
      look(`session.open of ${session.id}`, JSON.stringify(await host.endpoint.handle({ type: 'session.open', id: 'o', sessionId: session.id })));
    }
  } finally {
    await host.close();
  }
  // And never in a prompt (which may go to another endpoint than the one the key is for).
  run.model.requests.forEach((request, index) => look(`prompt ${index}`, request.text));
  return found;
}

describe('the API key stays out of the database, the logs and exports', () => {
  it('after a desktop run that looks at the environment', async () => {
    const run = await runCli([
      replies.hostTo('ShellAgent', 'show the environment'),
      shell('env | sort'),
      shell('echo "key=[$OPENAI_API_KEY]"; printenv | grep -i -c key || true'),
      replies.app({ Function: '', Status: 'FINISH', Comment: 'shown' }),
      replies.host({ Status: 'FINISH', Comment: 'done' }),
    ]);
    try {
      expect(run.code, run.stderr).toBe(0);
      // The key was really in use: the endpoint got it, as it should.
      expect(run.model.requests[0]?.headers.authorization).toBe(`Bearer ${run.key}`);
      expect(run.stdout).toContain('"kind":"step.added"');
      expect(run.stdout).toContain('key=[]');
      expect(await leaks(run)).toEqual([]);
    } finally {
      rmSync(run.dataDir, { recursive: true, force: true });
    }
  });

  it('even when a command reads the key out of the host process', async () => {
    // The commands' environment has no secrets, but the host's own /proc/<pid>/environ is readable by the
    // same user: a command can print it. What the host keeps and shows must still not hold the key.
    const walk =
      'p=$$; while [ "$p" -gt 1 ]; do tr "\\0" "\\n" < /proc/$p/environ 2>/dev/null | grep "^OPENAI_API_KEY=" && break; p=$(awk \'{print $4}\' /proc/$p/stat); done';
    const run = await runCli([
      replies.hostTo('ShellAgent', 'find the key'),
      shell(walk),
      replies.app({ Function: '', Status: 'FINISH', Comment: 'found it' }),
      replies.host({ Status: 'FINISH', Comment: 'done' }),
    ]);
    try {
      expect(run.code, run.stderr).toBe(0);
      // The command did find it (so the test tests something).
      expect(run.stdout).toMatch(/OPENAI_API_KEY=/);
      expect(await leaks(run)).toEqual([]);
    } finally {
      rmSync(run.dataDir, { recursive: true, force: true });
    }
  });
});

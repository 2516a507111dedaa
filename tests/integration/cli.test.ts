import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../src-main/protocol';
import { startModelServer, type Scenario } from '../fixtures/model-server';
import { runEntry, type EntryChild } from '../support/entry-process';
import { replies } from '../support/host-harness';
import { startXvfb, type XDisplay } from '../support/xvfb';

let x: XDisplay;
beforeAll(async () => {
  x = await startXvfb({ width: 800, height: 600 });
});
afterAll(async () => {
  await x?.stop();
});

interface CliResult {
  code: number | null;
  events: HostEvent[];
  stderr: string;
}

/** `whileRunning` sees the output so far and the process as it grows (to interrupt it, say). */
async function runCli(args: string[], env: NodeJS.ProcessEnv, whileRunning?: (stdout: string, child: EntryChild) => void): Promise<CliResult> {
  const { code, stdout, stderr } = await runEntry(
    'src-main/cli/main.ts',
    args,
    { ...x.env, DESKHAND_DATA_DIR: mkdtempSync(join(tmpdir(), 'deskhand-cli-')), OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ...env },
    { onStdout: whileRunning },
  );
  return { code, stderr, events: stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as HostEvent) };
}

async function withModel(scenario: Scenario, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult & { asked: number }> {
  const model = await startModelServer(scenario);
  try {
    const result = await runCli(args, { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted', ...env });
    return { ...result, asked: model.requests.length };
  } finally {
    await model.close();
  }
}

const shell = (command: string, status = 'CONTINUE', comment = '') => replies.app({ Function: 'execute_command', Args: { command }, Status: status, Comment: comment });

describe('npx deskhand run', () => {
  it('exits 2 with a clear message when no model is configured', async () => {
    const result = await runCli(['run', 'hello'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/No model is configured: set OPENAI_API_KEY/);
  });

  it('exits 2 with the usage for bad arguments, naming the option that is wrong', async () => {
    const result = await runCli(['fly', 'away'], { OPENAI_API_KEY: 'x' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'fly'[\s\S]*Usage: deskhand run/);
    const mode = await runCli(['run', 'list files', '--mode', 'desk'], { OPENAI_API_KEY: 'x' });
    expect(mode.code).toBe(2);
    expect(mode.stderr).toMatch(/^deskhand: --mode is desktop or shell, not 'desk'/);
    const long = await runCli(['run', 'x'.repeat(20_001)], { OPENAI_API_KEY: 'x' });
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/^deskhand: the request is too long: at most 20,000 characters/);
  });

  it('says which data folder cannot be used, and what to do', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'deskhand-cli-file-')), 'a-file');
    writeFileSync(file, 'not a folder');
    const result = await runCli(['run', 'hello', '--mode', 'shell'], { OPENAI_API_KEY: 'x', DESKHAND_DATA_DIR: join(file, 'data') });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^deskhand: cannot use the data folder .*a-file\/data \(ENOTDIR\): .*set DESKHAND_DATA_DIR to one/);
  });

  it('--help prints the usage and --version the version, both on stdout with exit 0', async () => {
    const output = async (args: string[]): Promise<{ code: number | null; stdout: string }> => {
      const { code, stdout } = await runEntry('src-main/cli/main.ts', args, undefined);
      return { code, stdout };
    };
    const help = await output(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: deskhand run "REQUEST"[\s\S]*--approve[\s\S]*130 stopped with Ctrl\+C/);
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(await output(['--version'])).toEqual({ code: 0, stdout: `deskhand ${version}\n` });
    expect((await output(['run', 'x', '-h'])).code).toBe(0);
  });

  it('--approve runs a held shell command; exit 0 and one JSON line per event', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'deskhand-cli-out-')), 'out.txt');
    const result = await withModel({ name: 'approve', steps: [shell(`echo cli-ok > ${out}`), shell('', 'FINISH', 'written')] }, ['run', '--mode', 'shell', '--approve', 'write the file']);
    expect(result.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('cli-ok\n');
    const kinds = result.events.map((event) => event.kind);
    expect(kinds[0]).toBe('session.started');
    expect(kinds).toContain('interaction.requested');
    expect(result.events.at(-1)).toMatchObject({ kind: 'session.ended', status: 'finished', result: 'written' });
  });

  it('runs shell mode without an X display, and says at once that desktop mode needs one', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'deskhand-cli-out-')), 'out.txt');
    const noDisplay = { DISPLAY: '', WAYLAND_DISPLAY: '' };
    const shellRun = await withModel({ name: 'no display', steps: [shell(`echo headless > ${out}`), shell('', 'FINISH', 'written')] }, ['run', '--mode', 'shell', '--approve', 'write it'], noDisplay);
    expect(shellRun.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('headless\n');

    const desktop = await withModel({ name: 'no display, desktop', steps: [] }, ['run', 'look at the screen'], noDisplay);
    expect(desktop.code).toBe(2);
    expect(desktop.events.at(-1)).toMatchObject({
      kind: 'session.ended',
      status: 'error',
      result: expect.stringMatching(/^Desktop mode needs a screen, and there is none: .*DISPLAY is not set.*Shell mode works without one\.$/s),
    });
    expect(desktop.asked, 'the model was asked nothing').toBe(0);
  });

  it('rejects approvals by default: the command never runs and the agent gives up (exit 1)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'deskhand-cli-out-')), 'out.txt');
    const result = await withModel(
      { name: 'reject', steps: [shell(`echo no > ${out}`), { ...shell('', 'FAIL', 'not allowed'), expect: { contains: ['Rejected by the user'] } }] },
      ['run', '--mode', 'shell', 'write the file'],
    );
    expect(result.code).toBe(1);
    expect(existsSync(out)).toBe(false);
    // Why it did not run: in the step's JSON line, and in words on stderr.
    const notRun = result.events.flatMap((event) => (event.kind === 'step.added' ? [`${event.step.index}:${event.step.notRun}`] : []));
    expect(notRun).toEqual(['0:null', '1:rejected', '2:null']);
    expect(result.stderr).toContain(`deskhand: step 2 not run: rejected (steps held for approval are rejected unless --approve is given) [Run 'echo no > ${out}']`);
  });

  it('--answer answers the agent\'s questions in order', async () => {
    const result = await withModel(
      {
        name: 'answer',
        steps: [
          replies.app({ Function: '', Status: 'PENDING', Questions: ['Which folder?'] }),
          { ...shell('', 'FINISH', 'ok'), expect: { contains: ['Q: "Which folder?" A: /tmp'] } },
        ],
      },
      ['run', '--mode', 'shell', '--answer', '/tmp', 'list a folder'],
    );
    expect(result.code).toBe(0);
  });

  it('says a key saved in the desktop app cannot be read here, instead of failing three times with 401', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-cli-keychain-'));
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ models: { host: { baseUrl: 'https://models.example/v1', model: 'm' } } }));
    writeFileSync(join(dataDir, 'secrets.json'), JSON.stringify({ version: 1, secrets: { host: { ciphertext: 'AAAA', protected: true } } }));
    const result = await runCli(['run', 'hello'], { DESKHAND_DATA_DIR: dataDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/the API key saved in the desktop app's Settings \(host\) is encrypted with the system keychain.*set OPENAI_API_KEY/);
    expect(result.events).toEqual([]);
  });

  it('runs with OPENAI_API_KEY although the desktop app saved keys it cannot read, when no profile needs them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-cli-keychain-'));
    const saved = { ciphertext: 'AAAA', protected: true };
    writeFileSync(join(dataDir, 'secrets.json'), JSON.stringify({ version: 1, secrets: { host: saved, app: saved } }));
    const model = await startModelServer({ name: 'env key', steps: [shell('', 'FINISH', 'hello')] });
    try {
      const result = await runCli(['run', '--mode', 'shell', 'hello'], { DESKHAND_DATA_DIR: dataDir, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted' });
      expect(result.stderr).not.toMatch(/encrypted with the system keychain/);
      expect(result.code).toBe(0);
    } finally {
      await model.close();
    }
  });

  it('Ctrl+C stops the run: the command under way is ended and the CLI exits 130', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'deskhand-cli-out-')), 'out.txt');
    const model = await startModelServer({ name: 'interrupted', steps: [shell(`sleep 4; echo late > ${out}`)] });
    let interrupted = false;
    try {
      const result = await runCli(['run', '--mode', 'shell', '--approve', 'take a while'], { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted' }, (stdout, child) => {
        // The approved command has started: its audit row is written, and the CLI shows the step running.
        if (!interrupted && stdout.includes('sleep 4') && stdout.includes('"approved"')) {
          interrupted = true;
          setTimeout(() => child.kill('SIGINT'), 300);
        }
      });
      expect(interrupted).toBe(true);
      expect(result.code).toBe(130);
      expect(result.events.at(-1)).toMatchObject({ kind: 'session.ended', status: 'stopped' });
      // Had the command outlived the CLI, it would have written the file by now.
      await new Promise((done) => setTimeout(done, 5_000));
      expect(existsSync(out)).toBe(false);
    } finally {
      await model.close();
    }
  });

  it('Ctrl+C while the host closes (the run over) waits for it to close: the lock and the servers it started are let go', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-cli-'));
    const marker = join(dataDir, 'server-closing');
    // A server of the user's that takes its time to end once the host closes it.
    const slowToEnd = {
      name: 'slow',
      transport: 'stdio',
      command: process.execPath,
      args: ['--import', 'tsx', resolve('tests/support/external-mcp-fixture.ts'), '--stdio', `--linger-on-close=${marker}`],
    };
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ mcpServers: [slowToEnd] }));
    const model = await startModelServer({ name: 'quick', steps: [shell('', 'FINISH', 'nothing to do')] });
    let watch: NodeJS.Timeout | undefined;
    try {
      let interrupted = false;
      const result = await runCli(['run', '--mode', 'shell', 'nothing'], { DESKHAND_DATA_DIR: dataDir, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted' }, (_stdout, child) => {
        watch ??= setInterval(() => {
          // The run is over and the host is closing that server: Ctrl+C now.
          if (!interrupted && existsSync(marker)) {
            interrupted = true;
            child.kill('SIGINT');
          }
        }, 20);
      });
      expect(interrupted).toBe(true);
      expect(result.events.at(-1)).toMatchObject({ kind: 'session.ended', status: 'finished' });
      // What the run ended with: the signal stopped nothing.
      expect(result.code).toBe(0);
      // Closed, not cut short: the lock is let go, and the server was ended, not left behind.
      expect(existsSync(join(dataDir, 'host.lock'))).toBe(false);
      const serverPid = Number(readFileSync(marker, 'utf8'));
      expect(() => process.kill(serverPid, 0)).toThrow();
    } finally {
      clearInterval(watch);
      await model.close();
    }
  });

  it('SIGTERM (kill, timeout) stops the run as Ctrl+C does, and exits 143', async () => {
    const model = await startModelServer({ name: 'terminated', steps: [shell('sleep 4')] });
    let terminated = false;
    try {
      const result = await runCli(['run', '--mode', 'shell', '--approve', 'take a while'], { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted' }, (stdout, child) => {
        if (!terminated && stdout.includes('"approved"')) {
          terminated = true;
          setTimeout(() => child.kill('SIGTERM'), 300);
        }
      });
      expect(terminated).toBe(true);
      expect(result.code).toBe(143);
      expect(result.events.at(-1)).toMatchObject({ kind: 'session.ended', status: 'stopped' });
    } finally {
      await model.close();
    }
  });

  it('stops the run and exits 141 when nothing reads its output any more (| head)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'deskhand-cli-out-')), 'out.txt');
    const model = await startModelServer({ name: 'nobody reads', steps: [shell(`sleep 3; echo late > ${out}`), shell('true', 'FINISH', 'done')] });
    let closed = false;
    try {
      const result = await runCli(['run', '--mode', 'shell', '--approve', 'take a while'], { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted' }, (stdout, child) => {
        // What `| head -1` does: read the first lines, then close the pipe while the command runs.
        if (!closed && stdout.includes('sleep 3') && stdout.includes('"approved"')) {
          closed = true;
          child.stdout?.destroy();
        }
      });
      expect(closed).toBe(true);
      expect(result.code).toBe(141);
      expect(result.stderr).toMatch(/^deskhand: the output was closed \(EPIPE\): the run is stopped\.$/m);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      // The run was stopped with the command under way: it never got to write the file.
      await new Promise((done) => setTimeout(done, 4_000));
      expect(existsSync(out)).toBe(false);
    } finally {
      await model.close();
    }
  });

  it('exits 141 and closes cleanly when its log shares the closed pipe (2>&1 | head -1)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-cli-'));
    const model = await startModelServer({ name: 'shared pipe', steps: [shell('sleep 3'), shell('true', 'FINISH', 'done')] });
    try {
      const cli = `'${process.execPath}' --import tsx '${resolve('src-main/cli/main.ts')}' run --mode shell --approve 'take a while'`;
      const child = spawn('bash', ['-c', `${cli} 2>&1 | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"`], {
        env: { ...x.env, DESKHAND_DATA_DIR: dataDir, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let status = '';
      child.stdout.on('data', (chunk: Buffer) => (status += chunk.toString()));
      await new Promise((done) => child.once('exit', done));
      expect(status.trim()).toBe('141');
      // Closed, not crashed: the data folder's lock was let go.
      expect(existsSync(join(dataDir, 'host.lock'))).toBe(false);
    } finally {
      await model.close();
    }
  });

  it('exits 2 when the run ends in ERROR', async () => {
    const result = await withModel(
      { name: 'errors', steps: Array.from({ length: 6 }, () => ({ content: 'not json' })) },
      ['run', '--mode', 'shell', 'do it'],
    );
    expect(result.code).toBe(2);
    expect(result.events.at(-1)).toMatchObject({ kind: 'session.ended', status: 'error' });
  });
});

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandOutput } from '../../src-main/device/contract';
import { DEFAULT_OUTPUT_CAP_BYTES } from '../../src-main/device/shell';
import {
  eventually,
  processAlive,
  startDevice,
  startXterm,
  startXvfb,
  textOf,
  type DeviceHandle,
  type XDisplay,
  type XProgram,
} from '../support/xvfb';

/**
 * execute_command through the device client over MCP: exit codes, output caps, a timeout that kills a
 * whole process tree, a cleaned environment; and type_text's paste into xterm, which reads the
 * PRIMARY selection.
 */

describe('execute_command over MCP', () => {
  let x: XDisplay;
  let device: DeviceHandle;
  let dir: string;
  let term: XProgram;

  const run = async (args: Record<string, unknown>): Promise<CommandOutput & { signal?: string | null }> => {
    const result = await device.call('execute_command', args);
    return CommandOutput.parse(result.structuredContent) as CommandOutput & { signal?: string | null };
  };

  beforeAll(async () => {
    x = await startXvfb({ width: 1024, height: 768 });
    dir = await mkdtemp(join(tmpdir(), 'deskhand-exec-'));
    // Secrets in the environment the host was started with; none may reach a command.
    device = await startDevice(x, { env: { OPENAI_API_KEY: 'sk-test-secret', GITHUB_TOKEN: 'ghp_x', DESKHAND_VISIBLE: 'yes' } });
    term = await startXterm(x, { geometry: '80x24+0+0', cwd: dir, title: 'paste-target' });
  });

  afterAll(async () => {
    await device?.close();
    await term?.stop();
    await x?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('returns the exit code and both streams', async () => {
    expect(await run({ command: 'echo "to out"; echo "to err" >&2; exit 3' })).toEqual({
      exit_code: 3,
      stdout: 'to out\n',
      stderr: 'to err\n',
      truncated: false,
      timed_out: false,
    });
    expect((await run({ command: 'true' })).exit_code).toBe(0);
    const result = await device.call('execute_command', { command: 'exit 1' });
    // A command that ran and failed is a result for the model, not a tool failure.
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toMatchObject({ exit_code: 1 });
  });

  it('runs in the working directory it is given', async () => {
    expect((await run({ command: 'pwd', cwd: dir })).stdout).toBe(`${dir}\n`);
    const missing = await device.call('execute_command', { command: 'pwd', cwd: join(dir, 'missing') });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/working directory .*missing does not exist/);
  });

  it('caps output at 64 KiB per stream and flags it', async () => {
    const out = await run({ command: 'seq 1 100000; seq 1 10 >&2' });
    expect(out.truncated).toBe(true);
    expect(Buffer.byteLength(out.stdout)).toBeLessThan(DEFAULT_OUTPUT_CAP_BYTES + 100);
    expect(out.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(out.stdout.endsWith('99999\n100000\n')).toBe(true);
    expect(out.stdout).toMatch(/\[\.\.\. \d+ bytes of output left out \.\.\.\]/);
    expect(out.stderr).toBe('1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n');
  });

  it('kills a child that spawned grandchildren when the timeout passes', async () => {
    const pids = join(dir, 'tree.pids');
    const started = Date.now();
    const result = await device.call('execute_command', {
      command: `(sleep 300 & echo $! >> ${pids}; sleep 300 & echo $! >> ${pids}; wait) & echo $! >> ${pids}; wait`,
      timeout_s: 1,
    });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result.isError).toBe(true);
    expect(CommandOutput.parse(result.structuredContent)).toMatchObject({ timed_out: true, exit_code: null });
    const tree = (await readFile(pids, 'utf8')).trim().split('\n').map(Number);
    expect(tree).toHaveLength(3);
    await eventually('the process tree to be gone', 3_000, async () => (tree.some(processAlive) ? undefined : true));
  });

  it('passes the environment on without secrets', async () => {
    const names = (await run({ command: 'env' })).stdout.split('\n').map((line) => line.split('=')[0]);
    expect(names).toContain('DESKHAND_VISIBLE');
    expect(names).toContain('DISPLAY');
    expect(names).not.toContain('OPENAI_API_KEY');
    expect(names).not.toContain('GITHUB_TOKEN');
  });

  it('starts a launched program with PWD naming the folder it runs in (home), not the device client\'s', async () => {
    // A program that reads $PWD from its environment, as scripts and shells do; no shell in between to repair it.
    const out = join(dir, 'launched-pwd.json');
    const script = `require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ pwd: process.env.PWD ?? null, cwd: process.cwd() }))`;
    await device.callOk('launch_app', { name: process.execPath, args: ['-e', script] }, { timeout: 30_000 });
    const seen = JSON.parse(await eventually('the launched program\'s report', 5_000, async () => (await readFile(out, 'utf8').catch(() => '')) || undefined)) as {
      pwd: string | null;
      cwd: string;
    };
    expect(seen.cwd).toBe(homedir());
    expect(seen.pwd).toBe(seen.cwd);
  });

  it('pastes a command into xterm, which runs it', async () => {
    await device.callOk('focus_window', { id: term.windowId });
    const out = join(dir, 'pasted.txt');
    const result = await device.callOk('type_text', { text: `echo 'pasted: Grüße <&>' > ${out}\n`, method: 'paste' });
    expect(result.structuredContent).toMatchObject({ method: 'paste' });
    const content = await eventually('the pasted command to run', 5_000, async () => {
      const text = await readFile(out, 'utf8').catch(() => '');
      return text ? text : undefined;
    });
    expect(content).toBe('pasted: Grüße <&>\n');
  });
});

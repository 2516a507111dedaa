import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startDevice, startXterm, startXvfb, textOf, type DeviceHandle, type XDisplay, type XProgram } from '../support/xvfb';

const execFileP = promisify(execFile);

/**
 * type_text refuses text with a control character (other than a line break or a tab) whichever way it
 * would go: typed key by key, pasted because the mode says so, pasted because the text is long, or
 * pasted because auto mode found it untypable. The target is an xterm running bash in its own folder:
 * whatever reached it would leave a file there, or spoil the name of the one the next line makes.
 */
describe('type_text and control characters (Xvfb + openbox, xterm)', () => {
  let x: XDisplay;
  let term: XProgram;
  let device: DeviceHandle;
  let dir: string;
  // The xsel that ships with clipboardy, the one the device client pastes with when xclip and xsel are missing.
  const xsel = join(dirname(createRequire(import.meta.url).resolve('clipboardy')), 'fallbacks', 'linux', 'xsel');

  /** Sets a selection as a user's copy would; xsel forks a process that serves it, so nothing is piped back. */
  const setSelection = (selection: 'clipboard' | 'primary', text: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = spawn(xsel, [`--${selection}`, '--input'], { env: x.env, stdio: ['pipe', 'ignore', 'ignore'] });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`xsel exited with ${code}`))));
      child.stdin.end(text);
    });
  const readSelection = async (selection: 'clipboard' | 'primary'): Promise<string> =>
    (await execFileP(xsel, [`--${selection}`, '--output'], { env: x.env, timeout: 5_000 })).stdout;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'deskhand-control-'));
    x = await startXvfb({ width: 800, height: 600 });
    term = await startXterm(x, { geometry: '80x20+0+0', title: 'control-target', cwd: dir });
    device = await startDevice(x);
  });

  afterAll(async () => {
    await device?.close();
    await term?.stop();
    await x?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const refusal = (code: string): string =>
    `type_text failed: the text holds the control character ${code}, which type_text neither types nor pastes: press keys with hotkey instead`;

  // Each text starts with a line that would run on its own, so any of it reaching bash leaves a file.
  const cases: Array<{ way: string; args: Record<string, unknown>; code: string }> = [
    { way: 'pasted on request', args: { text: 'touch leaked-paste\n\u001b[201~touch escaped\n', method: 'paste' }, code: 'U+001B' },
    { way: 'auto, where untypable text used to be pasted', args: { text: 'touch leaked-auto\n\u0003' }, code: 'U+0003' },
    { way: 'auto, pasted for its length', args: { text: `touch leaked-long\n#${'a'.repeat(1_200)}\u009b\n` }, code: 'U+009B' },
    { way: 'typed key by key', args: { text: 'touch leaked-typed\n\u009f', method: 'type' }, code: 'U+009F' },
    { way: 'pasted, a NUL', args: { text: 'touch leaked-nul\n\u0000\n', method: 'paste' }, code: 'U+0000' },
  ];

  it.each(cases)('refuses a control character $code ($way): the terminal and the clipboard get nothing', async ({ args, code }) => {
    await device.callOk('focus_window', { id: term.windowId });
    await device.callOk('hotkey', { keys: ['ctrl', 'c'] }); // a fresh line, whatever an earlier case left
    await setSelection('clipboard', `copied before ${code}`);
    await setSelection('primary', `selected before ${code}`);
    await eventually('the selections to be set', 5_000, async () =>
      (await readSelection('clipboard')) === `copied before ${code}` && (await readSelection('primary')) === `selected before ${code}` ? true : undefined,
    );
    const before = readdirSync(dir);

    const refused = await device.call('type_text', args);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(refusal(code));

    // The next line runs alone, under the name it was typed with: nothing else was on bash's line.
    const marker = `after-${code}`;
    await device.callOk('type_text', { text: `touch ${marker}\n`, method: 'type' });
    await eventually('the next line to run', 5_000, async () => (readdirSync(dir).includes(marker) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readdirSync(dir).filter((name) => !before.includes(name))).toEqual([marker]);
    expect(await readSelection('clipboard')).toBe(`copied before ${code}`);
    expect(await readSelection('primary')).toBe(`selected before ${code}`);
  });

  it('still types and pastes line breaks and tabs', async () => {
    await device.callOk('focus_window', { id: term.windowId });
    await device.callOk('hotkey', { keys: ['ctrl', 'c'] });
    const pasted = await device.callOk('type_text', { text: "printf '%s\\n' 'a\tb' > tabbed-paste\r\n", method: 'paste' });
    expect(pasted.structuredContent).toMatchObject({ method: 'paste' });
    const written = await eventually('the pasted line to run', 5_000, async () => (await readFile(join(dir, 'tabbed-paste'), 'utf8').catch(() => '')) || undefined);
    expect(written).toBe('a\tb\n');
  });
});

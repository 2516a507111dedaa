import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPECT_KEYBOARD_META, KEYBOARD_ELSEWHERE_META, WindowInfo } from '../../src-main/device/contract';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost } from '../../src-main/host/create-host';
import { startModelServer } from '../fixtures/model-server';
import { replies, until } from '../support/host-harness';
import { isolatedHome } from '../support/reliability-harness';
import { eventually, startDevice, startXterm, startXvfb, textOf, type DeviceHandle, type XDisplay, type XProgram } from '../support/xvfb';

const execFileP = promisify(execFile);

/**
 * The keyboard check on the device: input judged for one application is refused when it would reach a
 * window of another. "notes" is an xterm started with `-name notes`, so its window's application is
 * "notes", as an editor's would be; beside it, a plain xterm. Both run bash in their own folder, so a
 * line that reached either one leaves a file there.
 */
describe('the device refuses keyboard input that would reach another application (Xvfb + openbox)', () => {
  let x: XDisplay;
  let notes: XProgram;
  let term: XProgram;
  let device: DeviceHandle;
  let notesDir: string;
  let termDir: string;
  const expect_ = (app: string) => ({ meta: { [EXPECT_KEYBOARD_META]: { app } } });

  beforeAll(async () => {
    notesDir = mkdtempSync(join(tmpdir(), 'deskhand-kbd-notes-'));
    termDir = mkdtempSync(join(tmpdir(), 'deskhand-kbd-term-'));
    x = await startXvfb({ width: 800, height: 600 });
    notes = await startXterm(x, { geometry: '40x10+0+0', title: 'notes-window', name: 'notes', cwd: notesDir });
    term = await startXterm(x, { geometry: '40x10+400+300', title: 'terminal-window', cwd: termDir });
    device = await startDevice(x);
  });

  afterAll(async () => {
    await device?.close();
    await notes?.stop();
    await term?.stop();
    await x?.stop();
    for (const dir of [notesDir, termDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function windowsById(): Promise<Map<string, WindowInfo & { active?: boolean }>> {
    const listed = await device.callOk('list_windows');
    const windows = (listed.structuredContent as { windows: unknown[] }).windows.map((window) => WindowInfo.passthrough().parse(window));
    return new Map(windows.map((window) => [window.id, window as WindowInfo & { active?: boolean }]));
  }

  async function centreOf(program: XProgram): Promise<{ x: number; y: number }> {
    await device.callOk('screenshot'); // coordinates are pixels of the last screenshot: here, the whole screen
    const bounds = (await windowsById()).get(program.windowId)?.bounds;
    if (!bounds) throw new Error(`no window ${program.windowId}`);
    return { x: Math.round(bounds.x + bounds.width / 2), y: Math.round(bounds.y + bounds.height / 2) };
  }

  it('names the applications as the check compares them', async () => {
    const windows = await windowsById();
    expect(windows.get(notes.windowId)?.app).toBe('notes');
    expect(windows.get(term.windowId)?.app).toBe('xterm');
  });

  it('refuses a line typed while the terminal has the keyboard, and runs it once the right window has it', async () => {
    await device.callOk('focus_window', { id: term.windowId });
    const refused = await device.call('type_text', { text: 'touch typed-here\n' }, expect_('notes'));
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('type_text not run: the input would go to "terminal-window" (xterm), not to notes');
    expect(refused._meta?.[KEYBOARD_ELSEWHERE_META]).toEqual({ expected: 'notes', window: { title: 'terminal-window', app: 'xterm' }, typed: 0 });

    // The terminal was live all along: the same line judged for it runs there.
    await device.callOk('type_text', { text: 'touch allowed-here\n' }, expect_('XTerm'));
    await eventually('the allowed line to run', 5_000, async () => existsSync(join(termDir, 'allowed-here')) || undefined);
    expect(existsSync(join(termDir, 'typed-here'))).toBe(false);
  });

  it('refuses Enter pressed while the terminal has the keyboard', async () => {
    await device.callOk('focus_window', { id: term.windowId });
    await device.callOk('type_text', { text: 'touch by-enter' });
    const refused = await device.call('hotkey', { keys: ['enter'] }, expect_('notes'));
    expect(textOf(refused)).toMatch(/^hotkey not run: the input would go to "terminal-window" \(xterm\), not to notes$/);
    await device.callOk('hotkey', { keys: ['ctrl', 'u'] }); // clears the line
    await device.callOk('type_text', { text: 'touch after-enter\n' }, expect_('xterm'));
    await eventually('the next line to run', 5_000, async () => existsSync(join(termDir, 'after-enter')) || undefined);
    expect(existsSync(join(termDir, 'by-enter'))).toBe(false);
  });

  it('judges typing at a point by the window at the point, before clicking there', async () => {
    await device.callOk('focus_window', { id: notes.windowId });
    const onTerm = await centreOf(term);
    const refused = await device.call('type_text', { text: 'touch at-point\n', ...onTerm }, expect_('notes'));
    expect(textOf(refused)).toMatch(/^type_text not run: the input would go to "terminal-window"/);
    // Nothing was clicked: the notes window still has the keyboard.
    expect((await windowsById()).get(notes.windowId)?.active).toBe(true);

    // Typing at a point on the notes window while the terminal is in front clicks there and types there.
    await device.callOk('focus_window', { id: term.windowId });
    await device.callOk('type_text', { text: 'touch into-notes\n', ...(await centreOf(notes)) }, expect_('notes'));
    await eventually('the line typed into notes', 5_000, async () => existsSync(join(notesDir, 'into-notes')) || undefined);
    expect(existsSync(join(termDir, 'at-point'))).toBe(false);
    expect(existsSync(join(notesDir, 'at-point'))).toBe(false);
  });

  it('refuses a middle click (a paste) on another application\'s window', async () => {
    const onTerm = await centreOf(term);
    const before = await device.callOk('pointer');
    const refused = await device.call('click', { ...onTerm, button: 'middle' }, expect_('notes'));
    expect(textOf(refused)).toMatch(/^click not run: the input would go to "terminal-window"/);
    expect(textOf(await device.callOk('pointer'))).toBe(textOf(before)); // the pointer never went there
  });

  it('stops typing at the next piece when another program\'s window takes the keyboard part-way', async () => {
    await device.callOk('focus_window', { id: notes.windowId });
    // A comment line for the notes shell, long enough to take a while, then a line that must not run.
    const text = `#${'a'.repeat(200)}\ntouch escaped\n`;
    const typing = device.call('type_text', { text, method: 'type' }, expect_('notes'));
    await new Promise((done) => setTimeout(done, 300));
    await execFileP('xdotool', ['windowactivate', '--sync', String(parseInt(term.windowId, 16))], { env: x.env });
    const stopped = await typing;
    expect(stopped.isError).toBe(true);
    expect(textOf(stopped)).toMatch(/^type_text stopped after \d+ characters: the rest would have gone to "terminal-window" \(xterm\), not to notes$/);
    const typed = (stopped._meta?.[KEYBOARD_ELSEWHERE_META] as { typed: number }).typed;
    expect(typed).toBeGreaterThan(0);
    expect(typed).toBeLessThan(text.length - 'touch escaped\n'.length);
    await device.callOk('hotkey', { keys: ['ctrl', 'u'] }); // the terminal may hold a piece typed before the check saw it
    await device.callOk('type_text', { text: 'touch after-stop\n' }, expect_('xterm'));
    await eventually('the next line', 5_000, async () => existsSync(join(termDir, 'after-stop')) || undefined);
    expect(existsSync(join(termDir, 'escaped'))).toBe(false);
    // The notes shell holds the unfinished comment line: clear it for the tests after this one.
    await device.callOk('focus_window', { id: notes.windowId });
    await device.callOk('hotkey', { keys: ['ctrl', 'u'] });
  });

  it('tells programs apart by process, not by the name a window gives itself', async () => {
    // A second window calling itself "notes", from another process.
    const impostor = await startXterm(x, { geometry: '40x10+200+150', title: 'impostor-window', name: 'notes', cwd: termDir });
    try {
      await device.callOk('focus_window', { id: impostor.windowId });
      const expected = { meta: { [EXPECT_KEYBOARD_META]: { app: 'notes', window: notes.windowId } } };
      const refused = await device.call('type_text', { text: 'touch by-impostor\n' }, expected);
      expect(textOf(refused)).toBe('type_text not run: the input would go to "impostor-window" (notes), not to notes');
      // A named window that has closed leaves only the name to go by: held, even in a window of that name.
      const gone = await device.call('type_text', { text: 'touch after-close\n' }, { meta: { [EXPECT_KEYBOARD_META]: { app: 'notes', window: '0x0badbad0' } } });
      expect(textOf(gone)).toBe('type_text not run: the input would go to "impostor-window" (notes), not to notes');
      // The agent's own window passes.
      await device.callOk('focus_window', { id: notes.windowId });
      await device.callOk('type_text', { text: 'touch by-notes\n' }, expected);
      await eventually('the line typed into notes', 5_000, async () => existsSync(join(notesDir, 'by-notes')) || undefined);
      expect(existsSync(join(termDir, 'by-impostor'))).toBe(false);
    } finally {
      await impostor.stop();
    }
  });

  it('takes a dialog another process opened for the agent\'s window (a portal file chooser) as the agent\'s', async () => {
    const dialog = await startXterm(x, { geometry: '40x10+250+200', title: 'Save As', name: 'xdg-desktop-portal-gtk', cwd: notesDir });
    try {
      const expected = { meta: { [EXPECT_KEYBOARD_META]: { app: 'notes', window: notes.windowId } } };
      await device.callOk('focus_window', { id: dialog.windowId });
      const before = await device.call('type_text', { text: 'touch not-yet-a-dialog\n' }, expected);
      expect(textOf(before)).toMatch(/^type_text not run: the input would go to "Save As"/);
      // The portal marks its window as a dialog of the application's (WM_TRANSIENT_FOR).
      await execFileP('xprop', ['-id', dialog.windowId, '-f', 'WM_TRANSIENT_FOR', '32c', '-set', 'WM_TRANSIENT_FOR', notes.windowId], { env: x.env });
      await device.callOk('focus_window', { id: dialog.windowId });
      await device.callOk('type_text', { text: 'touch into-dialog\n' }, expected);
      await eventually('the line typed into the dialog', 5_000, async () => existsSync(join(notesDir, 'into-dialog')) || undefined);
      expect(existsSync(join(notesDir, 'not-yet-a-dialog'))).toBe(false);
    } finally {
      await dialog.stop();
    }
  });

  it('says a control character in typed text needs a hotkey, and types none of the text', async () => {
    await device.callOk('focus_window', { id: term.windowId });
    const refused = await device.call('type_text', { text: 'touch control\u0015\n', method: 'type' });
    expect(textOf(refused)).toBe('type_text failed: the text holds the control character U+0015, which type_text neither types nor pastes: press keys with hotkey instead');
    await device.callOk('type_text', { text: 'touch typed-after\n' });
    await eventually('the next line', 5_000, async () => existsSync(join(termDir, 'typed-after')) || undefined);
    expect(existsSync(join(termDir, 'control'))).toBe(false);
  });

  it('rejects a malformed expectation, or one on a tool that sends no input, and does nothing', async () => {
    await device.callOk('focus_window', { id: term.windowId });
    const malformed = await device.call('type_text', { text: 'touch malformed\n' }, { meta: { [EXPECT_KEYBOARD_META]: { app: '' } } });
    expect(malformed.isError).toBe(true);
    expect(textOf(malformed)).toMatch(/^type_text failed: bad deskhand\/expectKeyboard metadata/);
    const wrongTool = await device.call('click', { x: 5, y: 5 }, expect_('notes'));
    expect(textOf(wrongTool)).toBe('click failed: click sends no keyboard input to check');
    await device.callOk('type_text', { text: 'touch marker\n' }, expect_('xterm'));
    await eventually('the marker line', 5_000, async () => existsSync(join(termDir, 'marker')) || undefined);
    expect(existsSync(join(termDir, 'malformed'))).toBe(false);
  });
});

describe('an AppAgent whose window lost the keyboard (host, real device client, Xvfb + openbox)', () => {
  let x: XDisplay;
  let notes: XProgram;
  let term: XProgram;
  let notesDir: string;
  let termDir: string;

  beforeAll(async () => {
    notesDir = mkdtempSync(join(tmpdir(), 'deskhand-kbd-host-notes-'));
    termDir = mkdtempSync(join(tmpdir(), 'deskhand-kbd-host-term-'));
    x = await startXvfb({ width: 1024, height: 768 });
    notes = await startXterm(x, { geometry: '60x15+0+0', title: 'notes-window', name: 'notes', cwd: notesDir });
    term = await startXterm(x, { geometry: '60x15+520+380', title: 'terminal-window', cwd: termDir });
  });

  afterAll(async () => {
    await notes?.stop();
    await term?.stop();
    await x?.stop();
    for (const dir of [notesDir, termDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has the line refused on the device, tells the model where the keys would have gone, and brings its window back', async () => {
    const { app, hostTo, host } = replies;
    const model = await startModelServer({
      name: 'keyboard elsewhere',
      steps: [
        hostTo('notes-window', 'type a line in the notes'),
        app({ Function: 'wait', Args: { seconds: 1 }, Status: 'CONTINUE' }),
        app({ Function: 'type_text', Args: { text: 'touch typed-line\n' }, Status: 'CONTINUE' }),
        {
          ...app({ Function: '', Status: 'FINISH', Comment: 'the keyboard was elsewhere' }),
          expect: { contains: ['(xterm), not to notes'] },
        },
        host({ Status: 'FINISH', Comment: 'done' }),
      ],
    });
    const config = DeskhandConfig.parse({ models: { host: { baseUrl: model.baseUrl, model: 'scripted', maxRetries: 0 } } });
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-kbd-host-'));
    const deskhand = createHost({ dataDir, config, env: { ...x.env, HOME: isolatedHome(dataDir), OPENAI_API_KEY: 'x' } });
    try {
      const start = await deskhand.endpoint.handle({ type: 'session.start', id: 's', request: 'type a line in the notes' });
      expect(start).toMatchObject({ ok: true });
      // While the agent waits, something else (a pop-up, another program) brings the terminal to the front.
      await until(() => model.requests.length >= 2 || undefined, 'the first AppAgent step');
      await execFileP('xdotool', ['windowactivate', '--sync', String(parseInt(term.windowId, 16))], { env: x.env });

      expect(await deskhand.sessions.running).toEqual({ status: 'finished', result: 'done' });
      model.assertDone();
      const sessionId = deskhand.store.listSessions(1)[0]!.id;
      const refused = deskhand.store.steps(sessionId).find((step) => step.action?.function === 'type_text');
      expect(refused).toMatchObject({ status: 'ERROR', error: 'type_text not run: the input would go to "terminal-window" (xterm), not to notes' });
      // The agent's next step brought its own window back before it looked again.
      const tools = deskhand.audit.list(sessionId).map((row) => `${row.tool}:${row.status}`);
      expect(tools).toEqual(['focus_window:success', 'wait:success', 'type_text:failure', 'focus_window:success']);
      const { stdout } = await execFileP('xdotool', ['getactivewindow'], { env: x.env });
      expect(Number(stdout.trim())).toBe(parseInt(notes.windowId, 16));
      // The line ran nowhere: the terminal was live (the first describe shows the same kind of line running).
      await new Promise((done) => setTimeout(done, 300));
      expect(existsSync(join(termDir, 'typed-line'))).toBe(false);
      expect(existsSync(join(notesDir, 'typed-line'))).toBe(false);
    } finally {
      await deskhand.close();
      await model.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

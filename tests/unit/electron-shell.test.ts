// The desktop shell's logic, without Electron: what Stop stops, when the window gets out of the agent's
// way, what the tray says, notifications, quitting, the saved window place, desktop settings, the
// keychain encryptor and the navigation/permission guards.
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_STOP_HOTKEY,
  DESKTOP_SETTINGS_FILE,
  DesktopSettingsFile,
  effectiveWindowPolicy,
  FALLBACK_STOP_HOTKEY,
  isGlobalAccelerator,
  reservedShortcutUse,
} from '../../src-main/electron/desktop-settings';
import { appMenuTemplate, trayMenuTemplate, type MenuActions } from '../../src-main/electron/menus';
import { closeBeforeQuit, QUIT_WAIT_MS } from '../../src-main/electron/quit';
import { notificationFor, RunTracker, waitingKey } from '../../src-main/electron/run-tracker';
import { createSafeStorageEncryptor, type SafeStorageLike } from '../../src-main/electron/safe-storage';
import { guardSession, guardWebContents, mayGrantPermission, mayNavigate } from '../../src-main/electron/security';
import { changeStopHotkey, describeAccelerator, startStopHotkey, StopHotkey, stopSessions } from '../../src-main/electron/stop-control';
import { WaitingNotifications } from '../../src-main/electron/waiting-notifications';
import { ActingWindowController, type PolicyWindow } from '../../src-main/electron/window-policy';
import { DEFAULT_WINDOW_STATE, fitToDisplays, WINDOW_STATE_FILE, WindowStateFile } from '../../src-main/electron/window-state';
import type { FormView, HostCommand, HostEvent, HostMessage, Interaction, SessionView } from '../../src-main/protocol';

function session(id: string, status: SessionView['status'], title = `task ${id}`): SessionView {
  return {
    id,
    title,
    request: title,
    mode: 'desktop',
    status,
    createdAt: 0,
    updatedAt: 0,
    stepCount: 0,
    roundCount: 1,
    result: null,
    tokens: { prompt: 0, completion: 0 },
    costUsd: null,
    maxSteps: 30,
  };
}

const confirm: Interaction = {
  kind: 'confirm',
  id: 'i1',
  sessionId: 's1',
  agent: 'AppAgent',
  actionText: "Run 'rm -rf build'\nthen more",
  actions: [],
  target: 'xterm',
  reasons: ['rule: shell command'],
  screenshot: null,
};

describe('RunTracker', () => {
  it('knows what Stop stops and when the agent is acting', () => {
    const tracker = new RunTracker();
    expect(tracker.status()).toEqual({ label: 'Deskhand: idle', canStop: false, state: 'idle' });
    let change = tracker.apply({ kind: 'session.started', session: session('s1', 'running', 'Rename the PDFs') });
    expect(change.actingChanged).toBe(true);
    expect(tracker.isActing()).toBe(true);
    expect(tracker.activeSessionIds()).toEqual(['s1']);
    tracker.apply({ kind: 'step.added', step: { sessionId: 's1', index: 2 } } as unknown as HostEvent);
    expect(tracker.status()).toEqual({ label: 'Working: Rename the PDFs, step 3', canStop: true, state: 'acting' });

    change = tracker.apply({ kind: 'interaction.requested', interaction: confirm });
    expect(change.needsUser).toEqual({ kind: 'interaction', interaction: confirm });
    change = tracker.apply({ kind: 'status.changed', sessionId: 's1', status: 'waiting', detail: 'Waiting for approval' });
    expect(change.actingChanged).toBe(true);
    expect(tracker.isActing()).toBe(false);
    expect(tracker.status()).toMatchObject({ label: 'Waiting for you: Rename the PDFs', state: 'waiting', canStop: true });

    tracker.apply({ kind: 'interaction.resolved', sessionId: 's1', interactionId: 'i1', outcome: 'approved' });
    tracker.apply({ kind: 'status.changed', sessionId: 's1', status: 'running', detail: '' });
    expect(tracker.isActing()).toBe(true);
    change = tracker.apply({ kind: 'session.ended', sessionId: 's1', status: 'stopped', result: null });
    expect(change.actingChanged).toBe(true);
    expect(tracker.activeSessionIds()).toEqual([]);
    expect(tracker.pendingInteractions()).toEqual([]);
  });

  it('forgets finished sessions seen in updates, and shortens long titles', () => {
    const tracker = new RunTracker();
    tracker.apply({ kind: 'session.started', session: session('a', 'running', 'x'.repeat(100)) });
    tracker.apply({ kind: 'session.started', session: session('b', 'paused') });
    expect(tracker.status().label).toMatch(/^Working: x{47}… \(\+1 more\)$/);
    tracker.apply({ kind: 'session.updated', session: session('a', 'finished') });
    expect(tracker.activeSessionIds()).toEqual(['b']);
    expect(tracker.status()).toMatchObject({ state: 'paused', label: 'Paused: task b' });
  });

  it('words notifications by the kind of decision, without the action\'s arguments or the question', () => {
    const held = (actions: Array<{ function: string; args: Record<string, unknown> }>, actionText: string): Interaction => ({ ...confirm, actions, actionText });
    const cases: Array<[Interaction, string]> = [
      [held([{ function: 'execute_command', args: { command: 'mysql -psecret' } }], "Run 'mysql -psecret'"), 'A shell command waits for your approval'],
      [held([{ function: 'type_text', args: { text: 'hunter2' } }], "Type 'hunter2'"), 'Typing text waits for your approval'],
      [held([{ function: 'hotkey', args: { keys: ['ctrl', 'w'] } }], 'Press ctrl+w'), 'A key press waits for your approval'],
      [held([{ function: 'click', args: { x: 1, y: 2 } }, { function: 'type_text', args: { text: 'hunter2' } }], "Click\nType 'hunter2'"), 'A sequence of 2 actions waits for your approval'],
      [held([], "Open 'secret.txt'"), 'A step waits for your approval'],
    ];
    for (const [interaction, body] of cases) {
      const shown = notificationFor({ kind: 'interaction', interaction });
      expect(shown).toEqual({ title: 'Deskhand waits for your approval', body });
      expect(JSON.stringify(shown)).not.toMatch(/hunter2|psecret|secret\.txt|ctrl/);
    }
    const questions = (list: string[]): Interaction => ({ kind: 'questions', id: 'q', sessionId: 's', agent: 'HostAgent', questions: list });
    expect(notificationFor({ kind: 'interaction', interaction: questions(['What is your PIN?']) })).toEqual({ title: 'Deskhand has a question', body: 'The agent asks you a question' });
    expect(notificationFor({ kind: 'interaction', interaction: questions(['Which folder?', 'Why?']) })).toEqual({ title: 'Deskhand has 2 questions', body: 'The agent asks you 2 questions' });
    expect(notificationFor({ kind: 'form', form: form('f1', 'open') })).toEqual({ title: 'Deskhand waits for you', body: "The agent's form waits for you" });
  });

  it('reports forms that open as waiting, once, and what no longer waits when decided, closed or over', () => {
    const tracker = new RunTracker();
    tracker.apply({ kind: 'session.started', session: session('s1', 'running') });
    const opened = tracker.apply({ kind: 'form.updated', form: form('f1', 'open') });
    expect(opened.needsUser).toEqual({ kind: 'form', form: form('f1', 'open') });
    // The user typing into it, or the agent updating it, is not news.
    expect(tracker.apply({ kind: 'form.updated', form: { ...form('f1', 'open'), data: { name: 'x' } } }).needsUser).toBeNull();
    const formKey = waitingKey({ kind: 'form', form: form('f1', 'open') });
    expect(tracker.apply({ kind: 'form.updated', form: form('f1', 'closed') }).settled).toEqual([formKey]);
    expect(tracker.apply({ kind: 'form.updated', form: form('f1', 'closed') }).settled).toEqual([]);

    tracker.apply({ kind: 'interaction.requested', interaction: confirm });
    const confirmKey = waitingKey({ kind: 'interaction', interaction: confirm });
    expect(tracker.apply({ kind: 'interaction.resolved', sessionId: 's1', interactionId: 'i1', outcome: 'rejected' }).settled).toEqual([confirmKey]);

    tracker.apply({ kind: 'interaction.requested', interaction: confirm });
    tracker.apply({ kind: 'form.updated', form: form('f2', 'open') });
    const ended = tracker.apply({ kind: 'session.ended', sessionId: 's1', status: 'stopped', result: null });
    expect(ended.settled.sort()).toEqual([confirmKey, waitingKey({ kind: 'form', form: form('f2', 'open') })].sort());
    expect(confirmKey).not.toBe(formKey);
  });

  it('reports a run paused for disk space as waiting, once per pause, but not one the user paused or took the mouse from', () => {
    const tracker = new RunTracker();
    tracker.apply({ kind: 'session.started', session: session('s1', 'running') });
    const paused = (detail: string, pause: 'user' | 'takeover' | 'disk') => tracker.apply({ kind: 'status.changed', sessionId: 's1', status: 'paused', detail, pause });
    expect(paused('Paused by you', 'user').needsUser).toBeNull();
    expect(paused('You took the mouse', 'takeover').needsUser).toBeNull();
    const short = paused('Only 42 MB free on the disk', 'disk');
    expect(short.needsUser).toEqual({ kind: 'disk', sessionId: 's1' });
    // Resumed while still short, it pauses again: the notification shown still holds.
    expect(paused('Only 41 MB free on the disk', 'disk').needsUser).toBeNull();
    const key = waitingKey({ kind: 'disk', sessionId: 's1' });
    expect(tracker.apply({ kind: 'status.changed', sessionId: 's1', status: 'running', detail: 'Resumed' }).settled).toEqual([key]);
    expect(tracker.status().state).toBe('acting');
    // A new pause is news again; the session's end settles it.
    expect(paused('Only 40 MB free on the disk', 'disk').needsUser).toEqual({ kind: 'disk', sessionId: 's1' });
    expect(tracker.status()).toMatchObject({ state: 'paused' });
    expect(tracker.apply({ kind: 'session.ended', sessionId: 's1', status: 'stopped', result: null }).settled).toEqual([key]);
    // What the notification says names no path (it shows on the lock screen).
    expect(notificationFor({ kind: 'disk', sessionId: 's1' })).toEqual({
      title: 'Deskhand paused a run',
      body: "The disk that holds Deskhand's data is (nearly) full: free some space, then press Resume",
    });
  });
});

function form(formId: string, state: FormView['state']): FormView {
  return { formId, sessionId: 's1', agent: 'AppAgent', schema: { type: 'object' }, uischema: null, data: {}, state };
}

describe('notifications for what waits', () => {
  it('holds each notification until what it announced no longer waits, then closes it', () => {
    const notifications = new WaitingNotifications<{ close(): void; closed: number }>();
    const make = () => {
      const notification = { closed: 0, close: () => void notification.closed++ };
      return notification;
    };
    const first = make();
    const second = make();
    notifications.add('interaction:a', first);
    notifications.add('form:s:f', second);
    expect(notifications.size).toBe(2);
    notifications.close('interaction:a');
    expect([first.closed, second.closed, notifications.size]).toEqual([1, 0, 1]);
    notifications.close('interaction:a');
    expect(first.closed).toBe(1);
    const replacement = make();
    notifications.add('form:s:f', replacement);
    expect(second.closed).toBe(1);
    notifications.closeAll();
    expect([replacement.closed, notifications.size]).toEqual([1, 0]);
  });
});

describe('quitting', () => {
  afterEach(() => vi.useRealTimers());

  it('waits for the host to close, and quits at once when it has', async () => {
    const log = vi.fn();
    await closeBeforeQuit(async () => undefined, QUIT_WAIT_MS, log);
    await closeBeforeQuit(async () => {
      throw new Error('database locked');
    }, QUIT_WAIT_MS, log);
    expect(log.mock.calls).toEqual([['[deskhand] closing the host: database locked']]);
  });

  it('gives up waiting after the time limit, and says so', async () => {
    vi.useFakeTimers();
    const log = vi.fn();
    let done = false;
    void closeBeforeQuit(() => new Promise<void>(() => undefined), 10_000, log).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/gave up waiting for the host to close after 10 s.*quitting anyway/));
    expect(QUIT_WAIT_MS).toBe(10_000);
  });
});

describe('Stop', () => {
  it('sends session.stop for every active session through the protocol endpoint', async () => {
    const sent: HostCommand[] = [];
    const handle = async (command: HostCommand): Promise<HostMessage> => {
      sent.push(command);
      if (command.type === 'session.stop' && command.sessionId === 'gone') {
        return { type: 'reply', id: command.id, ok: false, error: { code: 'not_found', message: 'no such session' } };
      }
      return { type: 'reply', id: command.id, ok: true, result: {} };
    };
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await stopSessions(['s1', 'gone'], handle)).toEqual(['s1']);
    spy.mockRestore();
    expect(sent.map((command) => ({ type: command.type, sessionId: (command as { sessionId: string }).sessionId }))).toEqual([
      { type: 'session.stop', sessionId: 's1' },
      { type: 'session.stop', sessionId: 'gone' },
    ]);
    expect(new Set(sent.map((command) => command.id)).size).toBe(2);
  });

  it('registers the hotkey, falls back when the default is taken, and re-registers on change', () => {
    const taken = new Set([DEFAULT_STOP_HOTKEY]);
    const registered = new Map<string, () => void>();
    const shortcuts = {
      register: (accelerator: string, callback: () => void) => {
        if (taken.has(accelerator)) return false;
        registered.set(accelerator, callback);
        return true;
      },
      unregister: (accelerator: string) => void registered.delete(accelerator),
    };
    const onStop = vi.fn();
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const hotkey = new StopHotkey(shortcuts, onStop);
    expect(hotkey.set(DEFAULT_STOP_HOTKEY)).toBe(FALLBACK_STOP_HOTKEY);
    registered.get(FALLBACK_STOP_HOTKEY)?.();
    expect(onStop).toHaveBeenCalledTimes(1);
    expect(hotkey.set('Alt+F12')).toBe('Alt+F12');
    expect([...registered.keys()]).toEqual(['Alt+F12']);
    spy.mockRestore();
  });

  it('keeps the hotkey in use when the new one is taken, and refuses that setting', () => {
    const taken = new Set(['Alt+F11']);
    const registered = new Map<string, () => void>();
    const shortcuts = {
      register: (accelerator: string, callback: () => void) => {
        if (taken.has(accelerator)) return false;
        registered.set(accelerator, callback);
        return true;
      },
      unregister: (accelerator: string) => void registered.delete(accelerator),
    };
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const hotkey = new StopHotkey(shortcuts, vi.fn());
    expect(hotkey.set('Alt+F12')).toBe('Alt+F12');
    expect(hotkey.set('Alt+F11')).toBeNull();
    expect(hotkey.current).toBe('Alt+F12');
    expect([...registered.keys()]).toEqual(['Alt+F12']);

    expect(changeStopHotkey(hotkey, 'Alt+F11', 'Alt+F12')).toBe('Alt+F11 is taken by another program: Stop keeps Alt+F12');
    expect([...registered.keys()]).toEqual(['Alt+F12']);
    expect(changeStopHotkey(hotkey, 'Alt+F10', 'Alt+F12')).toBeNull();
    expect([...registered.keys()]).toEqual(['Alt+F10']);
    expect(changeStopHotkey(hotkey, 'Alt+F10', 'Alt+F10')).toBeNull();

    // A saved hotkey that was taken at start-up is tried again, and other settings are not refused for it.
    const fresh = new StopHotkey(shortcuts, vi.fn());
    expect(changeStopHotkey(fresh, 'Alt+F11', 'Alt+F11')).toBeNull();
    expect(fresh.current).toBeNull();
    spy.mockRestore();
  });

  it('takes the default at start-up when the saved hotkey is taken, so Stop is never left without one', () => {
    const taken = new Set(['Alt+F11']);
    const registered = new Map<string, () => void>();
    const shortcuts = {
      register: (accelerator: string, callback: () => void) => {
        if (taken.has(accelerator)) return false;
        registered.set(accelerator, callback);
        return true;
      },
      unregister: (accelerator: string) => void registered.delete(accelerator),
    };
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const free = new StopHotkey(shortcuts, vi.fn());
    expect(startStopHotkey(free, 'Alt+F12', 'linux')).toBeNull();
    expect(free.current).toBe('Alt+F12');
    free.clear();

    const hotkey = new StopHotkey(shortcuts, vi.fn());
    expect(startStopHotkey(hotkey, 'Alt+F11', 'linux')).toBe('the Stop hotkey Alt+F11 is taken by another program: Stop uses Ctrl+Shift+Esc instead');
    expect(hotkey.current).toBe(DEFAULT_STOP_HOTKEY);
    expect([...registered.keys()]).toEqual([DEFAULT_STOP_HOTKEY]);
    hotkey.clear();

    taken.add(DEFAULT_STOP_HOTKEY).add(FALLBACK_STOP_HOTKEY);
    const none = new StopHotkey(shortcuts, vi.fn());
    expect(startStopHotkey(none, 'Alt+F11', 'linux')).toBe('the Stop hotkey Alt+F11 is taken by another program, and so are Ctrl+Shift+Esc and Ctrl+Alt+Shift+Esc: Stop has no hotkey (the Stop button and the tray still stop a run)');
    expect(none.current).toBeNull();
    spy.mockRestore();
  });

  it('spells accelerators the platform way', () => {
    expect(describeAccelerator(DEFAULT_STOP_HOTKEY, 'darwin')).toBe('Cmd+Shift+Esc');
    expect(describeAccelerator(DEFAULT_STOP_HOTKEY, 'linux')).toBe('Ctrl+Shift+Esc');
  });
});

describe('tray and menus', () => {
  const actions: MenuActions = { stop: vi.fn(), showWindow: vi.fn(), openDataFolder: vi.fn(), openLogsFolder: vi.fn(), quit: vi.fn() };

  it('shows the status and a Stop item enabled only when something runs', () => {
    const idle = trayMenuTemplate({ label: 'Deskhand: idle', canStop: false, state: 'idle' }, DEFAULT_STOP_HOTKEY, actions, 'linux');
    expect(idle[0]).toMatchObject({ label: 'Deskhand: idle', enabled: false });
    const stop = idle.find((item) => String(item.label).startsWith('Stop'));
    expect(stop).toMatchObject({ label: 'Stop the agent (Ctrl+Shift+Esc)', enabled: false });
    const busy = trayMenuTemplate({ label: 'Working: x', canStop: true, state: 'acting' }, null, actions, 'linux');
    const busyStop = busy.find((item) => String(item.label).startsWith('Stop'));
    expect(busyStop).toMatchObject({ label: 'Stop the agent', enabled: true });
    (busyStop?.click as () => void)();
    expect(actions.stop).toHaveBeenCalled();
  });

  it('puts Stop in the application menu without registering its accelerator twice', () => {
    const menu = appMenuTemplate({ label: 'Working: x', canStop: true, state: 'acting' }, DEFAULT_STOP_HOTKEY, actions, { platform: 'linux' });
    const agent = menu.find((item) => item.label === '&Agent');
    const stop = (agent?.submenu as Array<{ label?: string; registerAccelerator?: boolean; accelerator?: string }>)[0];
    expect(stop).toMatchObject({ label: 'Stop the agent', accelerator: DEFAULT_STOP_HOTKEY, registerAccelerator: false });
    expect(JSON.stringify(menu)).not.toContain('toggleDevTools');
    expect(JSON.stringify(appMenuTemplate({ label: '', canStop: false, state: 'idle' }, null, actions, { developer: true }))).toContain('toggleDevTools');
  });
});

describe('keeping the window out of the agent screenshots', () => {
  function fakeWindow(): PolicyWindow & { log: string[]; minimized: boolean; visible: boolean } {
    const window = {
      log: [] as string[],
      minimized: false,
      visible: true,
      isDestroyed: () => false,
      isMinimized: () => window.minimized,
      isVisible: () => window.visible,
      minimize: () => {
        window.minimized = true;
        window.log.push('minimize');
      },
      hide: () => {
        window.visible = false;
        window.log.push('hide');
      },
      showInactive: () => {
        window.minimized = false;
        window.visible = true;
        window.log.push('showInactive');
      },
      setContentProtection: (on: boolean) => window.log.push(`protect:${on}`),
    };
    return window;
  }

  it('protects the content where the OS can, and never moves or focuses the window then', () => {
    const window = fakeWindow();
    const controller = new ActingWindowController(window, 'protect');
    controller.update(true);
    controller.update(false);
    expect(window.log).toEqual(['protect:true']);
  });

  it('minimises while acting and comes back without focus when the agent waits or stops', () => {
    const window = fakeWindow();
    const controller = new ActingWindowController(window, 'minimize');
    controller.update(true);
    controller.update(true);
    controller.update(false);
    expect(window.log).toEqual(['protect:false', 'minimize', 'showInactive']);
  });

  it('leaves a window the user minimised alone', () => {
    const window = fakeWindow();
    window.minimized = true;
    const controller = new ActingWindowController(window, 'hide');
    controller.update(true);
    controller.update(false);
    expect(window.log).toEqual(['protect:false']);
  });

  it('switches policy while acting', () => {
    const window = fakeWindow();
    const controller = new ActingWindowController(window, 'hide');
    controller.update(true);
    controller.setPolicy('protect');
    expect(window.log).toEqual(['protect:false', 'hide', 'showInactive', 'protect:true']);
  });

  it('maps auto (and protect where it does nothing) per platform', () => {
    expect(effectiveWindowPolicy('auto', 'darwin')).toBe('protect');
    expect(effectiveWindowPolicy('auto', 'win32')).toBe('protect');
    expect(effectiveWindowPolicy('auto', 'linux')).toBe('minimize');
    expect(effectiveWindowPolicy('protect', 'linux')).toBe('minimize');
    expect(effectiveWindowPolicy('leave', 'linux')).toBe('leave');
  });
});

describe('files in userData', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'deskhand-shell-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the window state, validated when read back', () => {
    const file = new WindowStateFile(dir);
    expect(file.load([])).toEqual(DEFAULT_WINDOW_STATE);
    file.save({ x: 100, y: 50, width: 1000, height: 700, maximized: true });
    expect(new WindowStateFile(dir).load([{ x: 0, y: 0, width: 1920, height: 1080 }])).toEqual({ x: 100, y: 50, width: 1000, height: 700, maximized: true });

    writeFileSync(join(dir, WINDOW_STATE_FILE), JSON.stringify({ width: 'huge', height: 10 }));
    const damaged = new WindowStateFile(dir);
    expect(damaged.loadProblem).toMatch(/width/);
    expect(damaged.load([])).toEqual(DEFAULT_WINDOW_STATE);
    expect(existsSync(join(dir, `${WINDOW_STATE_FILE}.bad`))).toBe(true);
  });

  it('drops a position no display shows any more and caps the size', () => {
    const laptop = [{ x: 0, y: 0, width: 1366, height: 740 }];
    expect(fitToDisplays({ x: 2500, y: 100, width: 1200, height: 800, maximized: false }, laptop)).toEqual({ width: 1200, height: 740, maximized: false });
    expect(fitToDisplays({ x: 10, y: 10, width: 800, height: 600, maximized: false }, laptop)).toEqual({ x: 10, y: 10, width: 800, height: 600, maximized: false });
  });

  it('checks desktop settings and keeps a bad file aside', () => {
    const file = new DesktopSettingsFile(dir);
    expect(file.get()).toEqual({ stopHotkey: DEFAULT_STOP_HOTKEY, windowWhileActing: 'auto', notifications: true });
    expect(file.check({ stopHotkey: 'Escape' })).toMatchObject({ ok: false, errors: [{ path: 'stopHotkey' }] });
    const checked = file.check({ windowWhileActing: 'hide', notifications: false });
    expect(checked).toMatchObject({ ok: true });
    if (checked.ok) file.save(checked.settings);
    expect(JSON.parse(readFileSync(join(dir, DESKTOP_SETTINGS_FILE), 'utf8'))).toMatchObject({ windowWhileActing: 'hide' });
    expect(new DesktopSettingsFile(dir).get().notifications).toBe(false);
    writeFileSync(join(dir, DESKTOP_SETTINGS_FILE), '{"stopHotkey": "A"}');
    const reread = new DesktopSettingsFile(dir);
    expect(reread.loadProblem).toMatch(/stopHotkey/);
    expect(reread.get().stopHotkey).toBe(DEFAULT_STOP_HOTKEY);
  });

  it('keeps the good values of a hand-edited desktop-settings.json that has a bad one, and says which was dropped', () => {
    const path = join(dir, DESKTOP_SETTINGS_FILE);
    const edited = JSON.stringify({ stopHotkey: 'Alt+F12', windowWhileActing: 'minimise', notifications: false });
    writeFileSync(path, edited);
    const file = new DesktopSettingsFile(dir);
    expect(file.get()).toEqual({ stopHotkey: 'Alt+F12', windowWhileActing: 'auto', notifications: false });
    expect(file.loadProblem).toMatch(/windowWhileActing/);
    expect(file.loadProblem).not.toMatch(/stopHotkey|notifications/);
    expect(file.loadProblem).toContain(`${path}.bad`);
    expect(readFileSync(`${path}.bad`, 'utf8')).toBe(edited);
    // What was kept is what the next start reads.
    const next = new DesktopSettingsFile(dir);
    expect(next.loadProblem).toBeNull();
    expect(next.get()).toEqual({ stopHotkey: 'Alt+F12', windowWhileActing: 'auto', notifications: false });

    // An unknown name is dropped the same way; a file that is no JSON object still falls back to the defaults.
    writeFileSync(path, JSON.stringify({ stopHotkey: 'Alt+F11', theme: 'dark' }));
    expect(new DesktopSettingsFile(dir).get().stopHotkey).toBe('Alt+F11');
    writeFileSync(path, '{"stopHotkey": "Alt+F11",');
    const damaged = new DesktopSettingsFile(dir);
    expect(damaged.get().stopHotkey).toBe(DEFAULT_STOP_HOTKEY);
    expect(damaged.loadProblem).toMatch(/not valid JSON/);
  });

  it('accepts only accelerators safe to grab system-wide', () => {
    for (const good of [DEFAULT_STOP_HOTKEY, FALLBACK_STOP_HOTKEY, 'Ctrl+Alt+S', 'Super+F12', 'Alt+Shift+Plus', 'CmdOrCtrl+num0']) {
      expect(isGlobalAccelerator(good), good).toBe(true);
    }
    for (const bad of ['Escape', 'Shift+A', 'Ctrl+', 'Ctrl+Ctrl+A', 'Ctrl+Shift', 'Ctrl+Hyper+A', 'Ctrl + A', 'Ctrl+F25', '']) {
      expect(isGlobalAccelerator(bad), bad).toBe(false);
    }
  });

  it('refuses the editing and window shortcuts other programs rely on, saying why', () => {
    const reserved = [
      'CommandOrControl+C', 'Ctrl+V', 'Cmd+X', 'CmdOrCtrl+Z', 'Control+Shift+Z', 'Ctrl+A', 'Ctrl+S', 'Ctrl+W', 'Command+Q',
      'Alt+Tab', 'Alt+Shift+Tab', 'Alt+F4', 'Option+Space', 'Ctrl+Tab', 'Ctrl+Alt+Delete', 'Super+L', 'Super+Tab', 'Meta+C', 'Ctrl+Esc',
    ];
    for (const shortcut of reserved) {
      expect(isGlobalAccelerator(shortcut), shortcut).toBe(false);
      expect(reservedShortcutUse(shortcut), shortcut).not.toBeNull();
    }
    expect(reservedShortcutUse('Shift+Alt+Tab')).toBe('switching windows and tabs');
    for (const free of [DEFAULT_STOP_HOTKEY, FALLBACK_STOP_HOTKEY, 'Ctrl+Alt+S', 'Alt+F12', 'Super+F12', 'Ctrl+Shift+F12']) {
      expect(reservedShortcutUse(free), free).toBeNull();
    }
    const file = new DesktopSettingsFile(dir);
    const refused = file.check({ stopHotkey: 'CommandOrControl+C' });
    expect(refused).toEqual({
      ok: false,
      errors: [{ path: 'stopHotkey', message: expect.stringMatching(/^CommandOrControl\+C is one of the shortcuts for copy, cut and paste in other programs/) }],
    });
    expect(file.check({ stopHotkey: 'Escape' })).toMatchObject({ ok: false, errors: [{ message: expect.stringMatching(/^a key with at least one of/) }] });
    expect(existsSync(join(dir, DESKTOP_SETTINGS_FILE))).toBe(false);
  });

  it('checks settings without saving them until asked', () => {
    const file = new DesktopSettingsFile(dir);
    const checked = file.check({ stopHotkey: 'Alt+F12' });
    expect(checked).toMatchObject({ ok: true, settings: { stopHotkey: 'Alt+F12' } });
    expect(file.get().stopHotkey).toBe(DEFAULT_STOP_HOTKEY);
    expect(existsSync(join(dir, DESKTOP_SETTINGS_FILE))).toBe(false);
    if (checked.ok) file.save(checked.settings);
    expect(new DesktopSettingsFile(dir).get().stopHotkey).toBe('Alt+F12');
  });
});

describe('keychain encryptor (safeStorage)', () => {
  function fakeSafeStorage(backend: string, extra: Partial<SafeStorageLike> = {}): SafeStorageLike {
    return {
      isEncryptionAvailable: () => true,
      encryptString: (text) => Buffer.from(`sync:${Buffer.from(text).toString('hex')}`),
      decryptString: (data) => Buffer.from(data.toString().slice(5), 'hex').toString(),
      getSelectedStorageBackend: () => backend,
      ...extra,
    };
  }

  it('reports basic_text on Linux as not protected, a keyring as protected', async () => {
    expect((await createSafeStorageEncryptor(fakeSafeStorage('basic_text'), 'linux')).protected).toBe(false);
    const keyring = await createSafeStorageEncryptor(fakeSafeStorage('gnome_libsecret'), 'linux');
    expect(keyring.protected).toBe(true);
    expect(keyring.encryptor?.isProtected()).toBe(true);
    expect(await keyring.encryptor?.decrypt(await (keyring.encryptor as NonNullable<typeof keyring.encryptor>).encrypt('k'))).toBe('k');
    expect((await createSafeStorageEncryptor(fakeSafeStorage('basic_text'), 'darwin')).protected).toBe(true);
  });

  it('uses the asynchronous API where Electron has it', async () => {
    const calls: string[] = [];
    const storage = fakeSafeStorage('kwallet6', {
      isAsyncEncryptionAvailable: async () => true,
      encryptStringAsync: async (text) => {
        calls.push('encryptAsync');
        return Buffer.from(`async:${text}`);
      },
      decryptStringAsync: async (data) => {
        calls.push('decryptAsync');
        return { result: data.toString().slice(6), shouldReEncrypt: true };
      },
    });
    const { encryptor } = await createSafeStorageEncryptor(storage, 'linux');
    const data = await encryptor?.encrypt('key');
    expect(await encryptor?.decryptWithStatus?.(data as Buffer)).toEqual({ text: 'key', reEncrypt: true });
    expect(calls).toEqual(['encryptAsync', 'decryptAsync']);
  });

  it('gives no encryptor when encryption is unavailable', async () => {
    const info = await createSafeStorageEncryptor(fakeSafeStorage('unknown', { isEncryptionAvailable: () => false }), 'linux');
    expect(info.encryptor).toBeNull();
  });
});

describe('navigation, window and permission guards', () => {
  it('allows navigation within the app only', () => {
    expect(mayNavigate('app://deskhand/index.html#session-1')).toBe(true);
    for (const url of ['https://example.com', 'file:///etc/passwd', 'app://screenshots/a/b.png', 'javascript:alert(1)', 'about:blank']) {
      expect(mayNavigate(url), url).toBe(false);
    }
  });

  it('grants only clipboard writes, only to the app', () => {
    expect(mayGrantPermission('clipboard-sanitized-write', 'app://deskhand/index.html')).toBe(true);
    expect(mayGrantPermission('clipboard-sanitized-write', 'https://evil.example')).toBe(false);
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fullscreen', 'hid']) {
      expect(mayGrantPermission(permission, 'app://deskhand/'), permission).toBe(false);
    }
    expect(mayGrantPermission('clipboard-sanitized-write', undefined)).toBe(false);
  });

  it('wires the guards onto web contents', () => {
    const contents = new EventEmitter() as EventEmitter & { setWindowOpenHandler(handler: (details: { url: string }) => unknown): void };
    let openHandler: ((details: { url: string }) => unknown) | null = null;
    contents.setWindowOpenHandler = (handler) => {
      openHandler = handler;
    };
    const blocked: string[] = [];
    guardWebContents(contents as never, { onBlocked: (what, url) => blocked.push(`${what} ${url}`) });
    const event = (url: string) => ({ url, defaultPrevented: false, preventDefault() { this.defaultPrevented = true; } });
    const away = event('https://evil.example/');
    contents.emit('will-navigate', away);
    const inside = event('app://deskhand/index.html');
    contents.emit('will-navigate', inside);
    const redirect = event('http://x.example/');
    contents.emit('will-redirect', redirect);
    const frame = event('https://ads.example/');
    contents.emit('will-frame-navigate', frame);
    const webview = event('');
    contents.emit('will-attach-webview', webview);
    expect([away.defaultPrevented, inside.defaultPrevented, redirect.defaultPrevented, frame.defaultPrevented, webview.defaultPrevented]).toEqual([true, false, true, true, true]);
    expect((openHandler as unknown as (details: { url: string }) => unknown)({ url: 'https://example.com' })).toEqual({ action: 'deny' });
    expect(blocked).toHaveLength(5);
  });

  it('denies permission requests and checks by default', () => {
    const handlers: Record<string, (...args: never[]) => unknown> = {};
    const fakeSession = Object.assign(new EventEmitter(), {
      setPermissionRequestHandler: (handler: (...args: never[]) => unknown) => (handlers.request = handler),
      setPermissionCheckHandler: (handler: (...args: never[]) => unknown) => (handlers.check = handler),
      setDevicePermissionHandler: (handler: (...args: never[]) => unknown) => (handlers.device = handler),
    });
    guardSession(fakeSession as never);
    const answers: boolean[] = [];
    const request = handlers.request as unknown as (contents: unknown, permission: string, callback: (granted: boolean) => void, details: { requestingUrl: string }) => void;
    request(null, 'media', (granted) => answers.push(granted), { requestingUrl: 'app://deskhand/' });
    request(null, 'clipboard-sanitized-write', (granted) => answers.push(granted), { requestingUrl: 'app://deskhand/' });
    expect(answers).toEqual([false, true]);
    const check = handlers.check as unknown as (contents: unknown, permission: string, origin: string, details: { requestingUrl?: string }) => boolean;
    expect(check(null, 'geolocation', 'app://deskhand', {})).toBe(false);
    expect((handlers.device as unknown as () => boolean)()).toBe(false);
  });
});

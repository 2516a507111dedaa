// The shell's wiring (src-main/electron/shell.ts) with a stand-in for the electron module and the host:
// no Electron binary is needed to check that the window is created with the secure preferences, that
// app:// and IPC are registered and reach the host, that Stop (hotkey) sends session.stop, that host
// events reach the page, tray and window (and notifications, closed once decided), that a taken Stop
// hotkey is refused, that quitting does not wait for ever, and that the device client is forked as a
// utility process.
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HostCommand, HostEvent, HostMessage } from '../../src-main/protocol';

const state = vi.hoisted(() => ({
  calls: [] as string[],
  windows: [] as Array<Record<string, unknown>>,
  handlers: new Map<string, (...args: unknown[]) => unknown>(),
  shortcuts: new Map<string, () => void>(),
  takenShortcuts: new Set<string>(),
  protocolHandler: null as null | ((request: Request) => Promise<Response>),
  notifications: [] as Array<{ title: string; body: string; closed: boolean; click: () => void }>,
  trayTooltips: [] as string[],
  forks: [] as Array<{ modulePath: string; args: string[]; options: Record<string, unknown> }>,
  commands: [] as unknown[],
  hostListener: null as null | ((event: unknown) => void),
  hostOptions: null as null | Record<string, unknown>,
  hostClosed: false,
  hostCloseHangs: false,
  dir: '',
  app: null as null | EventEmitter,
}));

vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  const app = Object.assign(new Emitter(), {
    isPackaged: false,
    setName: (name: string) => state.calls.push(`setName:${name}`),
    setPath: (name: string, value: string) => state.calls.push(`setPath:${name}:${value}`),
    getPath: (name: string) => `${state.dir}/${name}`,
    getVersion: () => '0.1.0',
    setAppUserModelId: () => undefined,
    enableSandbox: () => state.calls.push('enableSandbox'),
    requestSingleInstanceLock: () => {
      state.calls.push('requestSingleInstanceLock');
      return true;
    },
    whenReady: async () => {
      state.calls.push('whenReady');
    },
    setAppLogsPath: () => undefined,
    quit: () => state.calls.push('quit'),
    exit: (code: number) => state.calls.push(`exit:${code}`),
  });
  state.app = app;
  class WebContents extends Emitter {
    url = '';
    sent: unknown[] = [];
    openHandler: unknown = null;
    send(channel: string, message: unknown) {
      this.sent.push({ channel, message });
    }
    getURL() {
      return this.url;
    }
    setWindowOpenHandler(handler: unknown) {
      this.openHandler = handler;
    }
  }
  class BrowserWindow extends Emitter {
    webContents = new WebContents();
    options: Record<string, unknown>;
    log: string[] = [];
    minimized = false;
    constructor(options: Record<string, unknown>) {
      super();
      this.options = options;
      state.windows.push(this as unknown as Record<string, unknown>);
      app.emit('web-contents-created', {}, this.webContents);
    }
    loadURL(url: string) {
      this.webContents.url = url;
      this.log.push(`load:${url}`);
      return Promise.resolve();
    }
    isDestroyed = () => false;
    isMinimized = () => this.minimized;
    isVisible = () => true;
    isFocused = () => false;
    isMaximized = () => false;
    minimize = () => {
      this.minimized = true;
      this.log.push('minimize');
    };
    restore = () => this.log.push('restore');
    hide = () => this.log.push('hide');
    show = () => this.log.push('show');
    showInactive = () => {
      this.minimized = false;
      this.log.push('showInactive');
    };
    focus = () => this.log.push('focus');
    maximize = () => this.log.push('maximize');
    setContentProtection = (on: boolean) => this.log.push(`protect:${on}`);
    getNormalBounds = () => ({ x: 10, y: 20, width: 1000, height: 700 });
  }
  class Tray extends Emitter {
    setImage() {}
    setToolTip(text: string) {
      state.trayTooltips.push(text);
    }
    setContextMenu() {}
    isDestroyed() {
      return false;
    }
    destroy() {}
  }
  class Notification extends Emitter {
    static isSupported = () => true;
    private readonly shown: { title: string; body: string; closed: boolean; click: () => void };
    constructor(options: { title: string; body: string }) {
      super();
      this.shown = { ...options, closed: false, click: () => this.emit('click') };
    }
    show() {
      state.notifications.push(this.shown);
    }
    close() {
      this.shown.closed = true;
    }
  }
  const defaultSession = Object.assign(new Emitter(), {
    setPermissionRequestHandler: () => state.calls.push('permissionRequestHandler'),
    setPermissionCheckHandler: () => state.calls.push('permissionCheckHandler'),
    setDevicePermissionHandler: () => undefined,
    webRequest: { onBeforeRequest: () => state.calls.push('onBeforeRequest') },
  });
  return {
    app,
    BrowserWindow,
    Tray,
    Notification,
    dialog: { showErrorBox: (title: string, message: string) => state.calls.push(`error:${message}`) },
    globalShortcut: {
      register: (accelerator: string, callback: () => void) => {
        if (state.takenShortcuts.has(accelerator)) return false;
        state.shortcuts.set(accelerator, callback);
        return true;
      },
      unregister: (accelerator: string) => state.shortcuts.delete(accelerator),
      unregisterAll: () => state.shortcuts.clear(),
    },
    ipcMain: {
      handle: (channel: string, handler: (...args: unknown[]) => unknown) => state.handlers.set(channel, handler),
      removeHandler: (channel: string) => state.handlers.delete(channel),
    },
    Menu: { buildFromTemplate: (template: unknown) => template, setApplicationMenu: () => undefined },
    nativeImage: { createFromPath: () => ({ setTemplateImage: () => undefined }) },
    protocol: {
      registerSchemesAsPrivileged: (schemes: Array<{ scheme: string }>) => state.calls.push(`privileged:${schemes.map((s) => s.scheme).join()}`),
      handle: (scheme: string, handler: (request: Request) => Promise<Response>) => {
        state.calls.push(`handle:${scheme}`);
        state.protocolHandler = handler;
      },
    },
    safeStorage: {
      isEncryptionAvailable: () => true,
      encryptString: (text: string) => Buffer.from(text).reverse(),
      decryptString: (data: Buffer) => Buffer.from(data).reverse().toString(),
      getSelectedStorageBackend: () => 'gnome_libsecret',
    },
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
    session: { defaultSession },
    shell: { openExternal: async () => undefined, openPath: async () => '' },
    utilityProcess: {
      fork: (modulePath: string, args: string[], options: Record<string, unknown>) => {
        state.forks.push({ modulePath, args, options });
        const child = Object.assign(new Emitter(), { stdout: null, stderr: null, postMessage: () => undefined, kill: () => true });
        setImmediate(() => child.emit('spawn'));
        return child;
      },
    },
  };
});

vi.mock('../../src-main/host/create-host', () => ({
  createHost: (options: Record<string, unknown>) => {
    state.hostOptions = options;
    return {
      dataDir: options.dataDir,
      endpoint: {
        handle: async (command: HostCommand): Promise<HostMessage> => {
          state.commands.push(command);
          return { type: 'reply', id: command.id, ok: true, result: {} };
        },
      },
      sessions: {
        subscribe: (listener: (event: unknown) => void) => {
          state.hostListener = listener;
          return () => undefined;
        },
      },
      screenshots: { pathOf: () => null },
      interrupted: [],
      close: () => {
        state.hostClosed = true;
        return state.hostCloseHangs ? new Promise<void>(() => undefined) : Promise.resolve();
      },
    };
  },
}));

type FakeWindow = EventEmitter & {
  options: { show: boolean; webPreferences: Record<string, unknown> };
  webContents: EventEmitter & { sent: Array<{ channel: string; message: unknown }>; openHandler: (details: { url: string }) => unknown };
  log: string[];
};

let window: FakeWindow;
/** console.error while the shell started (the shell's log then copies console into main.log on top of it). */
let startErrors: ReturnType<typeof vi.spyOn>;
const emit = (event: HostEvent) => state.hostListener?.(event);

beforeAll(async () => {
  state.dir = mkdtempSync(join(tmpdir(), 'deskhand-wiring-'));
  process.env.DESKHAND_DATA_DIR = join(state.dir, 'data');
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  // A Stop hotkey of the user's own, saved by hand, that another program has taken by the time Deskhand starts.
  mkdirSync(join(state.dir, 'userData'), { recursive: true });
  writeFileSync(join(state.dir, 'userData', 'desktop-settings.json'), JSON.stringify({ stopHotkey: 'Alt+F9' }));
  state.takenShortcuts.add('Alt+F9');
  startErrors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const { startShell } = await import('../../src-main/electron/shell');
  await startShell({ entry: '/app/out/main/electron.js' });
  window = state.windows[0] as unknown as FakeWindow;
});

afterAll(() => {
  delete process.env.DESKHAND_DATA_DIR;
  rmSync(state.dir, { recursive: true, force: true });
});

const session = { id: 's1', title: 'Rename PDFs', request: 'Rename PDFs', mode: 'desktop', status: 'running', createdAt: 0, updatedAt: 0, stepCount: 0, roundCount: 1, result: null, tokens: { prompt: 0, completion: 0 }, costUsd: null, maxSteps: 30 } as const;

describe('shell wiring', () => {
  it('registers the privileged scheme, the sandbox and the single-instance lock before ready', () => {
    const ready = state.calls.indexOf('whenReady');
    for (const call of ['privileged:app', 'enableSandbox', 'requestSingleInstanceLock', 'setPath:userData:' + `${state.dir}/appData/Deskhand`]) {
      expect(state.calls.indexOf(call), call).toBeGreaterThanOrEqual(0);
      expect(state.calls.indexOf(call), call).toBeLessThan(ready);
    }
    expect(state.calls).toEqual(expect.arrayContaining(['permissionRequestHandler', 'permissionCheckHandler', 'onBeforeRequest', 'handle:app']));
  });

  it('creates one hidden, sandboxed, isolated window on app://deskhand', () => {
    expect(state.windows).toHaveLength(1);
    expect(window.options.show).toBe(false);
    expect(window.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false });
    expect(window.log).toContain('load:app://deskhand/index.html');
    // The web-contents guard was attached: new windows are denied.
    expect(window.webContents.openHandler({ url: 'https://example.com' })).toEqual({ action: 'deny' });
    window.emit('ready-to-show');
    expect(window.log).toContain('show');
  });

  it('loads the page again when its process dies, but not in a loop', () => {
    const loads = () => window.log.filter((entry) => entry === 'load:app://deskhand/index.html').length;
    expect(loads()).toBe(1);
    // Out of memory with a long trajectory, say: the window would stay blank while a run waits for approval.
    window.webContents.emit('render-process-gone', {}, { reason: 'oom', exitCode: 0 });
    expect(loads()).toBe(2);
    window.webContents.emit('render-process-gone', {}, { reason: 'clean-exit', exitCode: 0 });
    expect(loads()).toBe(2);
    for (let crash = 0; crash < 5; crash++) window.webContents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
    expect(loads()).toBe(4);
    expect(startErrors).toHaveBeenCalledWith(expect.stringMatching(/the window's page ended \(crashed, exit code 139\).*not loaded again/));
  });

  it('gives Stop the default hotkey when the saved one is taken at start-up, rather than none', () => {
    expect([...state.shortcuts.keys()]).toEqual(['CommandOrControl+Shift+Escape']);
    expect(startErrors).toHaveBeenCalledWith(expect.stringMatching(/the Stop hotkey Alt\+F9 is taken by another program: Stop uses (Ctrl|Cmd)\+Shift\+Esc instead/));
  });

  it('serves app:// through the protocol core', async () => {
    const response = await (state.protocolHandler as (request: Request) => Promise<Response>)(new Request('app://deskhand/%2e%2e/%2e%2e/package.json'));
    expect(response.status).toBe(404);
  });

  it('passes IPC commands from the window to the host, and refuses other senders', async () => {
    const handler = state.handlers.get('deskhand:command') as (...args: unknown[]) => Promise<unknown>;
    const event = { sender: window.webContents, senderFrame: { url: 'app://deskhand/index.html', parent: null } };
    expect(await handler(event, { type: 'session.list', id: 'r1' })).toMatchObject({ ok: true, id: 'r1' });
    expect(await handler({ ...event, sender: {} }, { type: 'session.list', id: 'r2' })).toMatchObject({ ok: false });
    expect(state.commands).toEqual([{ type: 'session.list', id: 'r1' }]);
    expect([...state.handlers.keys()].sort()).toEqual(['deskhand:command', 'deskhand:desktop-settings.get', 'deskhand:desktop-settings.set', 'deskhand:open-external']);
  });

  it('locks the data folder before it opens the settings there, and hands the lock to the host', () => {
    const dataDir = join(state.dir, 'data');
    const { dataDirLock } = state.hostOptions as { dataDirLock?: { dataDir: string; release(): void } };
    expect(dataDirLock?.dataDir).toBe(dataDir);
    expect(readFileSync(join(dataDir, 'host.lock'), 'utf8')).toMatch(new RegExp(`^${process.pid}\\b`));
  });

  it('hands the host a utility-process device client and no secrets in its environment', async () => {
    const options = state.hostOptions as {
      deviceTransport: () => { start(): Promise<void> };
      dataDir: string;
      apiKey: (profile: string) => string | null;
      settings: { get(): Promise<{ secrets: Record<string, unknown> }> };
    };
    expect(options.dataDir).toBe(join(state.dir, 'data'));
    // Keys and settings come from the shell's keychain-backed stores.
    const envKey = process.env.OPENAI_API_KEY?.trim() || null;
    expect(options.apiKey('host')).toBe(envKey);
    expect((await options.settings.get()).secrets).toEqual({ host: { set: envKey !== null, protected: true }, app: { set: false, protected: true } });
    process.env.OPENAI_API_KEY = 'sk-must-not-leak';
    const transport = options.deviceTransport();
    delete process.env.OPENAI_API_KEY;
    await transport.start();
    expect(state.forks).toHaveLength(1);
    expect(state.forks[0]).toMatchObject({ modulePath: '/app/out/main/electron.js', args: expect.arrayContaining(['--deskhand-device']) });
    expect(JSON.stringify(state.forks[0]?.options.env)).not.toContain('sk-must-not-leak');
  });

  it('keeps the token variable of an MCP server added in Settings out of a device client started after it', async () => {
    const options = state.hostOptions as {
      deviceTransport: () => { start(): Promise<void> };
      settings: { set(values: unknown): Promise<unknown> };
    };
    // GH_BEARER does not look like a secret by its name: only the setting that names it makes it one.
    await options.settings.set({ mcpServers: [{ name: 'gh', transport: 'http', url: 'https://mcp.example.test/', tokenSecret: 'GH_BEARER' }] });
    process.env.GH_BEARER = 'bearer-must-not-leak';
    try {
      // The device client crashed, or the screen changed size: the host starts a new one.
      await options.deviceTransport().start();
      expect(state.forks).toHaveLength(2);
      expect(JSON.stringify(state.forks[1]?.options.env)).not.toContain('bearer-must-not-leak');
    } finally {
      delete process.env.GH_BEARER;
      await options.settings.set({ mcpServers: [] });
    }
  });

  it('forwards host events to the page, the tray and the window, and stops with the hotkey', async () => {
    emit({ kind: 'session.started', session });
    expect(window.webContents.sent.at(-1)).toEqual({ channel: 'deskhand:message', message: { type: 'event', event: { kind: 'session.started', session } } });
    expect(state.trayTooltips.at(-1)).toBe('Working: Rename PDFs');
    if (process.platform === 'linux') expect(window.log).toContain('minimize');

    const stop = state.shortcuts.get('CommandOrControl+Shift+Escape');
    expect(stop).toBeTypeOf('function');
    stop?.();
    await vi.waitFor(() => expect(state.commands).toContainEqual(expect.objectContaining({ type: 'session.stop', sessionId: 's1' })));

    emit({
      kind: 'interaction.requested',
      interaction: { kind: 'questions', id: 'q1', sessionId: 's1', agent: 'HostAgent', questions: ['Which folder?'] },
    });
    emit({ kind: 'status.changed', sessionId: 's1', status: 'waiting', detail: 'Waiting for an answer' });
    expect(state.notifications).toMatchObject([{ title: 'Deskhand has a question', body: 'The agent asks you a question', closed: false }]);
    if (process.platform === 'linux') expect(window.log.at(-1)).toBe('showInactive');
    expect(window.log).not.toContain('focus');
  });

  it('closes each notification once what it announced is decided, closed or over, and notifies forms', () => {
    const question = state.notifications[0];
    emit({ kind: 'interaction.resolved', sessionId: 's1', interactionId: 'q1', outcome: 'answered' });
    expect(question?.closed).toBe(true);

    emit({
      kind: 'interaction.requested',
      interaction: {
        kind: 'confirm',
        id: 'c1',
        sessionId: 's1',
        agent: 'AppAgent',
        actionText: "Type 'hunter2'",
        actions: [{ function: 'type_text', args: { text: 'hunter2' } }],
        target: 'Login',
        reasons: ['rule: typing'],
        screenshot: null,
      },
    });
    const approval = state.notifications[1];
    expect(approval).toMatchObject({ title: 'Deskhand waits for your approval', body: 'Typing text waits for your approval', closed: false });
    expect(JSON.stringify(state.notifications)).not.toContain('hunter2');
    const shown = window.log.length;
    approval?.click();
    expect(window.log.slice(shown)).toEqual(['show', 'focus']);

    const form = { formId: 'f1', sessionId: 's1', agent: 'AppAgent', schema: { type: 'object' }, uischema: null, data: {}, state: 'open' } as const;
    emit({ kind: 'form.updated', form });
    emit({ kind: 'form.updated', form: { ...form, data: { name: 'typed by the user' } } });
    expect(state.notifications.slice(2)).toMatchObject([{ title: 'Deskhand waits for you', body: "The agent's form waits for you", closed: false }]);
    emit({ kind: 'form.updated', form: { ...form, state: 'closed' } });
    expect(state.notifications[2]?.closed).toBe(true);
    expect(approval?.closed).toBe(false);

    emit({ kind: 'session.ended', sessionId: 's1', status: 'stopped', result: null });
    expect(approval?.closed).toBe(true);
  });

  it('refuses a Stop hotkey that is taken or belongs to editing, and keeps the one in use', async () => {
    const handler = state.handlers.get('deskhand:desktop-settings.set') as (...args: unknown[]) => Promise<unknown>;
    const event = { sender: window.webContents, senderFrame: { url: 'app://deskhand/index.html', parent: null } };
    const errorSpy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    state.takenShortcuts.add('Alt+F11');
    expect(await handler(event, { stopHotkey: 'Alt+F11' })).toEqual({
      ok: false,
      errors: [{ path: 'stopHotkey', message: expect.stringMatching(/^Alt\+F11 is taken by another program: Stop keeps (Ctrl|Cmd)\+Shift\+Esc$/) }],
    });
    expect([...state.shortcuts.keys()]).toEqual(['CommandOrControl+Shift+Escape']);
    expect(await handler(event, { stopHotkey: 'CommandOrControl+V' })).toMatchObject({ ok: false, errors: [{ path: 'stopHotkey' }] });
    expect([...state.shortcuts.keys()]).toEqual(['CommandOrControl+Shift+Escape']);
    const getter = state.handlers.get('deskhand:desktop-settings.get') as (...args: unknown[]) => Promise<unknown>;
    // The saved setting is still the user's own (taken at start-up); Stop uses the default meanwhile.
    expect(await getter(event)).toMatchObject({ ok: true, settings: { stopHotkey: 'Alt+F9' }, hotkeyRegistered: 'CommandOrControl+Shift+Escape' });

    expect(await handler(event, { stopHotkey: 'Alt+F12' })).toMatchObject({ ok: true, settings: { stopHotkey: 'Alt+F12' }, hotkeyRegistered: 'Alt+F12' });
    expect([...state.shortcuts.keys()]).toEqual(['Alt+F12']);
    errorSpy.mockRestore();
  });

  it('keeps Stop on the saved hotkey when the new settings cannot be saved, and says why', async () => {
    const handler = state.handlers.get('deskhand:desktop-settings.set') as (...args: unknown[]) => Promise<unknown>;
    const event = { sender: window.webContents, senderFrame: { url: 'app://deskhand/index.html', parent: null } };
    const errorSpy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // A folder in the file's place makes the write fail, as a full disk or a read-only folder does.
    const file = join(state.dir, 'userData', 'desktop-settings.json');
    rmSync(file, { force: true });
    mkdirSync(join(file, 'in-the-way'), { recursive: true });
    try {
      const before = [...state.shortcuts.keys()];
      expect(await handler(event, { stopHotkey: 'Alt+F10' })).toEqual({
        ok: false,
        errors: [{ path: '', message: expect.stringMatching(/^the desktop settings could not be saved: /) }],
      });
      expect([...state.shortcuts.keys()]).toEqual(before);
      const getter = state.handlers.get('deskhand:desktop-settings.get') as (...args: unknown[]) => Promise<unknown>;
      expect(await getter(event)).toMatchObject({ ok: true, settings: { stopHotkey: before[0] }, hotkeyRegistered: before[0] });
    } finally {
      rmSync(file, { recursive: true, force: true });
      errorSpy.mockRestore();
    }
  });

  it("puts Stop back on the default hotkey, not on the default's fallback, when settings asking for the fallback cannot be saved", async () => {
    const handler = state.handlers.get('deskhand:desktop-settings.set') as (...args: unknown[]) => Promise<unknown>;
    const event = { sender: window.webContents, senderFrame: { url: 'app://deskhand/index.html', parent: null } };
    expect(await handler(event, { stopHotkey: 'CommandOrControl+Shift+Escape' })).toMatchObject({ ok: true });
    expect([...state.shortcuts.keys()]).toEqual(['CommandOrControl+Shift+Escape']);
    const errorSpy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const file = join(state.dir, 'userData', 'desktop-settings.json');
    rmSync(file, { force: true });
    mkdirSync(join(file, 'in-the-way'), { recursive: true });
    try {
      expect(await handler(event, { stopHotkey: 'CommandOrControl+Alt+Shift+Escape' })).toMatchObject({ ok: false });
      expect([...state.shortcuts.keys()]).toEqual(['CommandOrControl+Shift+Escape']);
    } finally {
      rmSync(file, { recursive: true, force: true });
      errorSpy.mockRestore();
    }
  });

  it('closes the host before quitting, but quits anyway when closing does not end', async () => {
    vi.useFakeTimers();
    state.hostCloseHangs = true;
    const errorSpy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      let prevented = false;
      state.app?.emit('before-quit', { preventDefault: () => (prevented = true) });
      expect(prevented).toBe(true);
      expect(state.hostClosed).toBe(true);
      await vi.advanceTimersByTimeAsync(9_000);
      expect(state.calls).not.toContain('quit');
      await vi.advanceTimersByTimeAsync(1_000);
      expect(state.calls).toContain('quit');
      expect(errorSpy).toHaveBeenCalledWith(expect.stringMatching(/gave up waiting for the host to close.*quitting anyway/));
    } finally {
      errorSpy.mockRestore();
      vi.useRealTimers();
    }
  });
});

// The desktop app's start-up when something before the host is wrong (src-main/electron/shell.ts): the
// user launched it from the desktop and has no terminal, so the reason must come in a dialog, never as
// a line on the console only. A stand-in for the electron module; no Electron binary is needed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const state = vi.hoisted(() => ({ dir: '', calls: [] as string[], dialogs: [] as Array<{ title: string; message: string }> }));

vi.mock('electron', async () => {
  const { EventEmitter } = await import('node:events');
  const app = Object.assign(new EventEmitter(), {
    isPackaged: true,
    setName: () => undefined,
    setPath: () => undefined,
    getPath: (name: string) => `${state.dir}/${name}`,
    getVersion: () => '0.1.0',
    setAppUserModelId: () => undefined,
    enableSandbox: () => undefined,
    requestSingleInstanceLock: () => true,
    whenReady: async () => undefined,
    setAppLogsPath: () => undefined,
    quit: () => state.calls.push('quit'),
    exit: (code: number) => state.calls.push(`exit:${code}`),
  });
  const defaultSession = Object.assign(new EventEmitter(), {
    setPermissionRequestHandler: () => undefined,
    setPermissionCheckHandler: () => undefined,
    setDevicePermissionHandler: () => undefined,
    webRequest: { onBeforeRequest: () => undefined },
  });
  const unused = new Proxy({}, { get: () => () => undefined });
  return {
    app,
    session: { defaultSession },
    protocol: { registerSchemesAsPrivileged: () => undefined, handle: () => undefined },
    dialog: { showErrorBox: (title: string, message: string) => state.dialogs.push({ title, message }) },
    safeStorage: {
      isEncryptionAvailable: () => true,
      encryptString: (text: string) => Buffer.from(text).reverse(),
      decryptString: (data: Buffer) => Buffer.from(data).reverse().toString(),
      getSelectedStorageBackend: () => 'gnome_libsecret',
    },
    BrowserWindow: unused,
    globalShortcut: unused,
    ipcMain: unused,
    Menu: unused,
    nativeImage: unused,
    Notification: unused,
    screen: unused,
    shell: unused,
    Tray: unused,
    utilityProcess: unused,
  };
});

vi.mock('../../src-main/host/create-host', () => ({
  createHost: () => {
    state.calls.push('createHost');
    throw new Error('not reached in these tests');
  },
}));

const saved = { ...process.env };

beforeAll(() => {
  state.dir = mkdtempSync(join(tmpdir(), 'deskhand-start-'));
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});

afterAll(() => {
  process.env = saved;
  rmSync(state.dir, { recursive: true, force: true });
});

describe('start-up before the host', () => {
  it('says in a dialog why it cannot start when the environment has a value Deskhand cannot use', async () => {
    process.env.DESKHAND_DATA_DIR = join(state.dir, 'data');
    process.env.OPENAI_BASE_URL = 'not a url';
    const { startShell } = await import('../../src-main/electron/shell');
    await expect(startShell({ entry: '/app/out/main/electron.js' })).rejects.toThrow(/OPENAI_BASE_URL/);
    expect(state.dialogs).toEqual([{ title: 'Deskhand could not start', message: expect.stringMatching(/^OPENAI_BASE_URL is not valid/) }]);
    expect(state.calls).toEqual(['exit:1']);
  });
});

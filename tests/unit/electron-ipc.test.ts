import { describe, expect, it, vi } from 'vitest';
import { Channel } from '../../src-main/electron/channels';
import {
  createChannels,
  externalHttpUrl,
  isAppUrl,
  registerIpc,
  senderProblem,
  type ChannelDeps,
  type FrameLike,
  type IpcEventLike,
  type IpcMainLike,
} from '../../src-main/electron/ipc';
import type { HostCommand, HostMessage } from '../../src-main/protocol';

type Listener = (event: IpcEventLike, ...args: unknown[]) => unknown;

/** Stands in for ipcMain: keeps the handlers so the test can invoke them like Electron would. */
function fakeIpcMain() {
  const handlers = new Map<string, Listener>();
  const ipcMain: IpcMainLike = {
    handle: (channel, listener) => {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, listener);
    },
    removeHandler: (channel) => handlers.delete(channel),
  };
  const invoke = async (channel: string, event: IpcEventLike, ...args: unknown[]) => {
    const handler = handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler(event, ...args);
  };
  return { ipcMain, handlers, invoke };
}

const ourContents = { id: 1 };
const appFrame: FrameLike = { url: 'app://deskhand/index.html', parent: null };

function eventFrom(frame: FrameLike | null, sender: unknown = ourContents): IpcEventLike {
  return { senderFrame: frame, sender };
}

function setup(overrides: Partial<ChannelDeps> = {}) {
  const commands: HostCommand[] = [];
  const opened: string[] = [];
  const refusals: string[] = [];
  const deps: ChannelDeps = {
    async handleCommand(command) {
      commands.push(command);
      return { type: 'reply', id: command.id, ok: true, result: { sessions: [] } };
    },
    async openInBrowser(url) {
      opened.push(url);
    },
    getDesktopSettings: () => ({
      ok: true,
      settings: { stopHotkey: 'CommandOrControl+Shift+Escape', windowWhileActing: 'auto', notifications: true },
      hotkeyRegistered: null,
    }),
    setDesktopSettings: () => ({ ok: false, errors: [] }),
    ...overrides,
  };
  const fake = fakeIpcMain();
  const unregister = registerIpc(fake.ipcMain, createChannels(deps), {
    isOurContents: (sender) => sender === ourContents,
    onRefused: (channel, refusal) => refusals.push(`${channel}: ${refusal.code}`),
  });
  return { ...fake, commands, opened, refusals, unregister };
}

const listCommand = { type: 'session.list', id: 'r1' };

describe('IPC registration', () => {
  it('registers every channel in one place and can remove them again', () => {
    const { handlers, unregister } = setup();
    expect([...handlers.keys()].sort()).toEqual(
      [Channel.command, Channel.openExternal, Channel.desktopSettingsGet, Channel.desktopSettingsSet].sort(),
    );
    unregister();
    expect(handlers.size).toBe(0);
  });

  it('passes a valid command from the app main frame to the host, parsed by the protocol schema', async () => {
    const { invoke, commands } = setup();
    const reply = (await invoke(Channel.command, eventFrom(appFrame), { type: 'session.start', id: 'r2', request: '  list files  ' })) as HostMessage;
    expect(reply).toMatchObject({ type: 'reply', id: 'r2', ok: true });
    // The protocol schema ran: the request is trimmed and the default mode filled in.
    expect(commands).toEqual([{ type: 'session.start', id: 'r2', request: 'list files', mode: 'desktop' }]);
  });

  it('refuses a sender that is not one of our windows', async () => {
    const { invoke, commands, refusals } = setup();
    const reply = (await invoke(Channel.command, eventFrom(appFrame, { id: 99 }), listCommand)) as HostMessage;
    expect(reply).toMatchObject({ type: 'reply', id: 'r1', ok: false, error: { code: 'bad_message' } });
    expect(commands).toEqual([]);
    expect(refusals).toEqual([`${Channel.command}: untrusted-sender`]);
  });

  it('refuses a sub-frame, even one showing the app origin', async () => {
    const { invoke, commands } = setup();
    const subFrame: FrameLike = { url: 'app://deskhand/index.html', parent: appFrame };
    const reply = (await invoke(Channel.command, eventFrom(subFrame), listCommand)) as HostMessage;
    expect(reply).toMatchObject({ ok: false, error: { message: expect.stringContaining('main frame') } });
    expect(commands).toEqual([]);
  });

  it('refuses a main frame showing another origin, and a frame that is gone', async () => {
    const { invoke, commands } = setup();
    for (const url of ['https://evil.example/', 'file:///etc/passwd', 'app://screenshots/s/a.png', 'app://deskhand.evil/x', 'app://user:pw@deskhand/', 'about:blank']) {
      const reply = (await invoke(Channel.command, eventFrom({ url, parent: null }), listCommand)) as HostMessage;
      expect(reply, url).toMatchObject({ ok: false });
    }
    expect(await invoke(Channel.command, eventFrom(null), listCommand)).toMatchObject({ ok: false });
    expect(commands).toEqual([]);
  });

  it('refuses an invalid payload with the field and the schema message, keeping the id', async () => {
    const { invoke, commands, refusals } = setup();
    const empty = (await invoke(Channel.command, eventFrom(appFrame), { type: 'session.start', id: 'r3', request: '   ' })) as HostMessage;
    expect(empty).toEqual({
      type: 'reply',
      id: 'r3',
      ok: false,
      error: { code: 'bad_message', message: 'invalid input: request: the request is empty' },
    });
    const unknownField = (await invoke(Channel.command, eventFrom(appFrame), { ...listCommand, extra: 1 })) as HostMessage;
    expect(unknownField).toMatchObject({ ok: false, id: 'r1' });
    const notACommand = (await invoke(Channel.command, eventFrom(appFrame), 'rm -rf /')) as HostMessage;
    expect(notACommand).toMatchObject({ ok: false, id: null });
    const twoArgs = (await invoke(Channel.command, eventFrom(appFrame), listCommand, listCommand)) as HostMessage;
    expect(twoArgs).toMatchObject({ ok: false });
    expect(commands).toEqual([]);
    expect(refusals.every((line) => line.endsWith('invalid-input'))).toBe(true);
  });

  it('refuses an oversized payload before parsing it', async () => {
    const { invoke, commands } = setup();
    const reply = (await invoke(Channel.command, eventFrom(appFrame), { type: 'session.start', id: 'r4', request: 'x'.repeat(300_000) })) as HostMessage;
    expect(reply).toMatchObject({ ok: false, error: { message: expect.stringContaining('larger than') } });
    expect(commands).toEqual([]);
  });

  it('turns a handler failure into an internal error reply without details', async () => {
    const { invoke } = setup({
      handleCommand: async () => {
        throw new Error('secret internals');
      },
    });
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const reply = (await invoke(Channel.command, eventFrom(appFrame), listCommand)) as HostMessage;
    spy.mockRestore();
    expect(reply).toEqual({ type: 'reply', id: 'r1', ok: false, error: { code: 'internal', message: 'the app could not do that' } });
  });

  it('opens only http(s) links, and only for the app main frame', async () => {
    const { invoke, opened } = setup();
    expect(await invoke(Channel.openExternal, eventFrom(appFrame), 'https://example.com/docs?q=1')).toBe(true);
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'ms-settings:', 'https://user:pw@example.com/', '/relative']) {
      expect(await invoke(Channel.openExternal, eventFrom(appFrame), url), url).toBe(false);
    }
    expect(await invoke(Channel.openExternal, eventFrom({ url: 'app://deskhand/', parent: appFrame }), 'https://example.com/')).toBe(false);
    expect(await invoke(Channel.openExternal, eventFrom(appFrame), 42)).toBe(false);
    expect(opened).toEqual(['https://example.com/docs?q=1']);
  });

  it('checks desktop settings calls the same way', async () => {
    const { invoke } = setup();
    expect(await invoke(Channel.desktopSettingsGet, eventFrom(appFrame))).toMatchObject({ ok: true });
    expect(await invoke(Channel.desktopSettingsGet, eventFrom(appFrame), 'extra')).toMatchObject({ ok: false });
    expect(await invoke(Channel.desktopSettingsSet, eventFrom(appFrame), 'not an object')).toMatchObject({ ok: false });
    expect(await invoke(Channel.desktopSettingsGet, eventFrom({ url: 'https://x.example', parent: null }))).toMatchObject({
      ok: false,
      errors: [{ message: 'refused: not the app origin' }],
    });
  });
});

describe('sender and URL checks', () => {
  it('accepts only app://deskhand', () => {
    expect(isAppUrl('app://deskhand/index.html')).toBe(true);
    expect(isAppUrl('app://deskhand/')).toBe(true);
    expect(isAppUrl('app://deskhand:8080/')).toBe(false);
    expect(isAppUrl('app://screenshots/a/b.png')).toBe(false);
    expect(isAppUrl('https://deskhand/')).toBe(false);
    expect(isAppUrl('not a url')).toBe(false);
  });

  it('names the problem with a sender', () => {
    const isOurs = (sender: unknown) => sender === ourContents;
    expect(senderProblem(eventFrom(appFrame), isOurs)).toBeNull();
    expect(senderProblem(eventFrom(appFrame, {}), isOurs)).toBe('not one of our windows');
    expect(senderProblem(eventFrom({ url: appFrame.url, parent: appFrame }), isOurs)).toBe('not the main frame');
  });

  it('normalises external URLs', () => {
    expect(externalHttpUrl('HTTPS://Example.COM/a b')).toBe('https://example.com/a%20b');
    expect(externalHttpUrl('http://')).toBeNull();
  });
});

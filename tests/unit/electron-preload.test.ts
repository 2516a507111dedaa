// The preload with a stand-in for electron's renderer modules: what the page gets, and which clicks
// open a link in the browser.
import { beforeAll, describe, expect, it, vi } from 'vitest';

const state = vi.hoisted(() => ({
  exposed: new Map<string, unknown>(),
  invoked: [] as unknown[][],
  listeners: new Map<string, Set<(...args: unknown[]) => void>>(),
  clickListener: null as null | ((event: unknown) => void),
  capture: false,
  active: true,
}));

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (name: string, api: unknown) => state.exposed.set(name, api) },
  ipcRenderer: {
    invoke: async (...args: unknown[]) => {
      state.invoked.push(args);
      return { type: 'reply', id: 'x', ok: true, result: {} };
    },
    on: (channel: string, listener: (...args: unknown[]) => void) => {
      const set = state.listeners.get(channel) ?? new Set();
      set.add(listener);
      state.listeners.set(channel, set);
    },
    removeListener: (channel: string, listener: (...args: unknown[]) => void) => state.listeners.get(channel)?.delete(listener),
  },
}));

interface Api {
  invoke(command: unknown): Promise<unknown>;
  onMessage(callback: (message: unknown) => void): () => void;
  desktop: { getSettings(): Promise<unknown>; setSettings(values: unknown): Promise<unknown> };
}
let api: Api;

beforeAll(async () => {
  Object.assign(globalThis, {
    addEventListener: (type: string, listener: (event: unknown) => void, capture: boolean) => {
      if (type === 'click') {
        state.clickListener = listener;
        state.capture = capture;
      }
    },
  });
  Object.defineProperty(globalThis, 'navigator', {
    configurable: true,
    value: { userActivation: { get isActive() { return state.active; } } },
  });
  await import('../../src-main/electron/preload');
  api = state.exposed.get('deskhand') as Api;
});

function click(href: string | null, options: { isTrusted?: boolean } = {}) {
  let prevented = false;
  const anchor = href === null ? null : { href };
  state.clickListener?.({
    isTrusted: options.isTrusted ?? true,
    defaultPrevented: false,
    target: { closest: (selector: string) => (selector === 'a[href]' ? anchor : null) },
    preventDefault: () => (prevented = true),
  });
  return prevented;
}

describe('preload', () => {
  it('exposes only small functions under window.deskhand', () => {
    expect([...state.exposed.keys()]).toEqual(['deskhand']);
    expect(Object.keys(api).sort()).toEqual(['desktop', 'invoke', 'onMessage']);
    expect(Object.keys(api.desktop).sort()).toEqual(['getSettings', 'setSettings']);
  });

  it('sends commands on the command channel', async () => {
    state.invoked.length = 0;
    await api.invoke({ type: 'session.list', id: 'r1' });
    await api.desktop.getSettings();
    expect(state.invoked).toEqual([['deskhand:command', { type: 'session.list', id: 'r1' }], ['deskhand:desktop-settings.get']]);
  });

  it('hands the page the message only, never the IPC event, and unsubscribes', () => {
    const seen: unknown[][] = [];
    const unsubscribe = api.onMessage((...args) => seen.push(args));
    const [listener] = [...(state.listeners.get('deskhand:message') ?? [])];
    listener?.({ sender: 'the ipcRenderer' }, { type: 'event', event: {} });
    expect(seen).toEqual([[{ type: 'event', event: {} }]]);
    unsubscribe();
    expect(state.listeners.get('deskhand:message')?.size).toBe(0);
    expect(() => api.onMessage('nope' as never)).toThrow(TypeError);
  });

  it('opens http(s) links the user really clicked, and nothing else', () => {
    expect(state.capture).toBe(true);
    state.invoked.length = 0;
    expect(click('https://example.com/docs')).toBe(true);
    expect(click('file:///etc/passwd')).toBe(false);
    expect(click('app://deskhand/index.html#session-1')).toBe(false);
    expect(click(null)).toBe(false);
    // A click made by page script (isTrusted false) opens nothing; its navigation meets the main-process guard.
    expect(click('https://evil.example/', { isTrusted: false })).toBe(false);
    state.active = false;
    expect(click('https://late.example/')).toBe(true);
    state.active = true;
    expect(state.invoked).toEqual([['deskhand:open-external', 'https://example.com/docs']]);
  });
});

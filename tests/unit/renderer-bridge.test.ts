import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_MESSAGE_BYTES, type HostCommand, type HostEvent, type SessionView } from '../../src-main/protocol';
import { ElectronBridge, type DeskhandPreloadApi } from '../../src-renderer/src/bridge/electron';
import { HostCommandError } from '../../src-renderer/src/bridge/errors';
import type { BridgeConnection } from '../../src-renderer/src/bridge/types';
import { takePageToken, TOKEN_STORAGE_KEY, type TabStorage } from '../../src-renderer/src/bridge/page-token';
import { ScreenshotBlobs } from '../../src-renderer/src/bridge/screenshot-blobs';
import { WebSocketBridge, type FetchLike, type SocketLike } from '../../src-renderer/src/bridge/websocket';

const sessionView: SessionView = {
  id: 's1',
  title: 'Rename PDFs',
  request: 'rename the PDFs',
  mode: 'desktop',
  status: 'running',
  createdAt: 1,
  updatedAt: 1,
  stepCount: 0,
  roundCount: 1,
  result: null,
  tokens: { prompt: 0, completion: 0 },
  costUsd: null,
  maxSteps: null,
};

const startedEvent: HostEvent = { kind: 'session.started', session: sessionView };

class FakeSocket implements SocketLike {
  readyState = 0;
  readonly sent: HostCommand[] = [];
  private readonly listeners = new Map<string, ((event: { data: unknown }) => void)[]>();

  constructor(readonly url: string) {}

  addEventListener(type: string, listener: (event: { data: unknown }) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  send(data: string): void {
    this.sent.push(JSON.parse(data) as HostCommand);
  }

  close(): void {
    this.readyState = 3;
    this.fire('close');
  }

  open(): void {
    this.readyState = 1;
    this.fire('open');
  }

  receive(message: unknown): void {
    this.fire('message', typeof message === 'string' ? message : JSON.stringify(message));
  }

  private fire(type: string, data?: unknown): void {
    for (const listener of this.listeners.get(type) ?? []) listener({ data });
  }
}

describe('WebSocketBridge', () => {
  let sockets: FakeSocket[];
  let bridge: WebSocketBridge;

  const socket = (): FakeSocket => {
    const last = sockets.at(-1);
    if (!last) throw new Error('no socket was created');
    return last;
  };

  beforeEach(() => {
    vi.useFakeTimers();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    sockets = [];
    bridge = new WebSocketBridge({
      host: '127.0.0.1:4000',
      secure: false,
      token: 'a b/c',
      createSocket: (url) => {
        const created = new FakeSocket(url);
        sockets.push(created);
        return created;
      },
    });
  });

  afterEach(() => {
    bridge.dispose();
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('connects with the token and reports the connection', () => {
    const states: BridgeConnection[] = [];
    bridge.onConnection((state) => states.push(state));
    bridge.start();
    expect(socket().url).toBe('ws://127.0.0.1:4000/ws?token=a%20b%2Fc');
    socket().open();
    // 'connecting' first: a page load must not flash "Disconnected".
    expect(states).toEqual(['connecting', 'connected']);
  });

  it('says the host is unreachable after several attempts in a row fail, and keeps trying', () => {
    const states: BridgeConnection[] = [];
    bridge.onConnection((state) => states.push(state));
    bridge.start();
    socket().open();
    socket().close();
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      vi.advanceTimersByTime(20_000);
      socket().close();
    }
    expect(states).toEqual(['connecting', 'connected', 'disconnected', 'unreachable']);
    vi.advanceTimersByTime(20_000);
    socket().open();
    expect(states.at(-1)).toBe('connected');
  });

  it('assigns ids, resolves the matching reply and validates the result', async () => {
    bridge.start();
    socket().open();
    const listing = bridge.send({ type: 'session.list' });
    const [command] = socket().sent;
    expect(command?.type).toBe('session.list');
    expect(command?.id).toBeTruthy();
    socket().receive({ type: 'reply', id: command?.id, ok: true, result: { sessions: [sessionView] } });
    await expect(listing).resolves.toEqual({ sessions: [sessionView], damaged: [], repair: null });
  });

  it('refuses a command larger than the host takes, with a clear error, and keeps the connection', async () => {
    const states: BridgeConnection[] = [];
    bridge.onConnection((state) => states.push(state));
    bridge.start();
    socket().open();
    const answer = (text: string) => bridge.send({ type: 'interaction.answer', sessionId: 's1', interactionId: 'q1', answers: [text] });
    // 100,000 euro signs: fewer characters than the limit has bytes, but 3 bytes each in UTF-8.
    for (const pasted of ['x'.repeat(MAX_MESSAGE_BYTES), '€'.repeat(100_000)]) {
      await expect(answer(pasted)).rejects.toThrow(/^That is too large to send to Deskhand \(\d+ KB; at most 256 KB\): shorten what was typed or pasted\.$/);
    }
    expect(socket().sent).toEqual([]);
    expect(socket().readyState).toBe(1);
    expect(states).toEqual(['connecting', 'connected']);
    // Just under the limit, even with characters of several bytes, it goes.
    const sent = answer('€'.repeat(80_000)).catch((error: unknown) => error);
    expect(socket().sent).toHaveLength(1);
    bridge.dispose();
    await expect(sent).resolves.toBeInstanceOf(Error);
  });

  it("rejects with the host's message on ok:false", async () => {
    bridge.start();
    socket().open();
    const stopping = bridge.send({ type: 'session.stop', sessionId: 'nope' });
    const id = socket().sent[0]?.id ?? null;
    socket().receive({ type: 'reply', id, ok: false, error: { code: 'not_found', message: 'No session nope' } });
    await expect(stopping).rejects.toSatisfy(
      (error: unknown) => error instanceof HostCommandError && error.message === 'No session nope' && error.code === 'not_found',
    );
  });

  it('rejects a result that does not match the command schema', async () => {
    bridge.start();
    socket().open();
    const listing = bridge.send({ type: 'session.list' });
    socket().receive({ type: 'reply', id: socket().sent[0]?.id, ok: true, result: { sessions: 'many' } });
    await expect(listing).rejects.toThrow(/unexpected result for session.list/);
  });

  it('delivers valid events and drops invalid messages', () => {
    const events: HostEvent[] = [];
    bridge.onEvent((event) => events.push(event));
    bridge.start();
    socket().open();
    socket().receive('not json');
    socket().receive({ type: 'event', event: { kind: 'step.added', step: { id: 1 } } });
    socket().receive({ type: 'event', event: startedEvent });
    expect(events).toEqual([startedEvent]);
    expect(console.warn).toHaveBeenCalledTimes(2);
  });

  it('reports an error reply that carries no id', () => {
    const errors: Error[] = [];
    bridge.onError((error) => errors.push(error));
    bridge.start();
    socket().open();
    socket().receive({ type: 'reply', id: null, ok: false, error: { code: 'bad_message', message: 'Unreadable' } });
    expect(errors.map((error) => error.message)).toEqual(['Unreadable']);
  });

  it('gives up on a command the host never answers, so the button that sent it comes back', async () => {
    bridge.start();
    socket().open();
    const deciding = bridge.send({ type: 'interaction.decide', sessionId: 's1', interactionId: 'i1', approved: true });
    const outcome = deciding.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    vi.advanceTimersByTime(59_000);
    await Promise.resolve();
    vi.advanceTimersByTime(1_000);
    await expect(outcome).resolves.toMatch(/did not answer \(interaction\.decide\) within 60 s/);
    // An answer that comes after all is dropped with a warning, never taken for a later request's.
    socket().receive({ type: 'reply', id: socket().sent[0]?.id, ok: true, result: {} });
    expect(console.warn).toHaveBeenCalledWith(expect.stringMatching(/unknown request/), expect.anything());
  });

  it('keeps no timer for a command answered in time', async () => {
    bridge.start();
    socket().open();
    const listing = bridge.send({ type: 'session.list' });
    socket().receive({ type: 'reply', id: socket().sent[0]?.id, ok: true, result: { sessions: [] } });
    await expect(listing).resolves.toEqual({ sessions: [], damaged: [], repair: null });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('refuses to send while disconnected, fails pending requests on close, and reconnects', async () => {
    bridge.start();
    await expect(bridge.send({ type: 'session.list' })).rejects.toThrow(/Not connected/);
    socket().open();
    const pending = bridge.send({ type: 'session.list' });
    socket().close();
    await expect(pending).rejects.toThrow(/lost before it replied: it may have been done\. The view reloads once reconnected/);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1_000);
    expect(sockets).toHaveLength(2);
  });

  it('stops retrying and says so when the server refuses the token (the host was restarted)', async () => {
    const refusing = new WebSocketBridge({
      host: '127.0.0.1:4000',
      secure: false,
      token: 'old',
      createSocket: (url) => {
        const created = new FakeSocket(url);
        sockets.push(created);
        return created;
      },
      tokenRefused: () => Promise.resolve(true),
    });
    const states: BridgeConnection[] = [];
    refusing.onConnection((state) => states.push(state));
    refusing.start();
    socket().close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(states).toEqual(['connecting', 'disconnected', 'refused']);
    expect(sockets).toHaveLength(1);
    refusing.dispose();
  });

  it('goes on retrying when the server still accepts the token', async () => {
    bridge = new WebSocketBridge({
      host: '127.0.0.1:4000',
      secure: false,
      token: 'current',
      createSocket: (url) => {
        const created = new FakeSocket(url);
        sockets.push(created);
        return created;
      },
      tokenRefused: () => Promise.resolve(false),
    });
    bridge.start();
    socket().close();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(sockets).toHaveLength(2);
  });

  it('fetches a screenshot with the token in a header, never in its address, and shows it from a blob: URL', async () => {
    const fetched: Array<{ url: string; headers: Record<string, string>; credentials: string }> = [];
    const fetchImage: FetchLike = (url, init) => {
      fetched.push({ url, headers: init.headers, credentials: init.credentials });
      return Promise.resolve({ ok: true, status: 200, blob: () => Promise.resolve(new Blob(['PIXELS'])) });
    };
    const created: Blob[] = [];
    const revoked: string[] = [];
    const withImages = new WebSocketBridge({
      host: '127.0.0.1:4000',
      secure: false,
      token: 'a b/c',
      createSocket: (url) => new FakeSocket(url),
      fetch: fetchImage,
      objectUrls: { create: (blob) => `blob:http://127.0.0.1:4000/${created.push(blob)}`, revoke: (url) => revoked.push(url) },
    });
    const lease = withImages.screenshot({ sessionId: 's 1', file: 'step-3.png', width: 10, height: 10 });
    const url = await lease.url;
    expect(url).toBe('blob:http://127.0.0.1:4000/1');
    expect(url).not.toContain('a b/c');
    expect(fetched).toEqual([{ url: '/screenshots/s%201/step-3.png', headers: { Authorization: 'Bearer a b/c' }, credentials: 'omit' }]);
    expect(await created[0]?.text()).toBe('PIXELS');
    lease.release();
    withImages.dispose();
  });

  it('rejects a screenshot the server refuses', async () => {
    const refusing = new WebSocketBridge({
      host: '127.0.0.1:4000',
      secure: false,
      token: 't',
      createSocket: (url) => new FakeSocket(url),
      fetch: () => Promise.resolve({ ok: false, status: 404, blob: () => Promise.reject(new Error('no body')) }),
    });
    await expect(refusing.screenshot({ sessionId: 's1', file: 'gone.png', width: 1, height: 1 }).url).rejects.toThrow(/HTTP 404/);
    refusing.dispose();
  });
});

describe('ScreenshotBlobs', () => {
  function blobs(idleKept = 2) {
    const loads: Array<{ path: string; signal: AbortSignal; resolve(blob: Blob): void; reject(error: Error): void }> = [];
    const revoked: string[] = [];
    let made = 0;
    const cache = new ScreenshotBlobs(
      (path, signal) => new Promise<Blob>((resolve, reject) => loads.push({ path, signal, resolve, reject })),
      { create: () => `blob:${++made}`, revoke: (url) => revoked.push(url) },
      idleKept,
    );
    return { cache, loads, revoked };
  }
  const settle = () => new Promise((done) => setTimeout(done, 0));

  it('loads an image once however many components show it', async () => {
    const { cache, loads } = blobs();
    const first = cache.lease('/screenshots/s/a.png');
    const second = cache.lease('/screenshots/s/a.png');
    expect(loads).toHaveLength(1);
    loads[0]?.resolve(new Blob(['a']));
    expect(await first.url).toBe('blob:1');
    expect(await second.url).toBe('blob:1');
  });

  it('keeps the most recent images nobody shows, and revokes older ones', async () => {
    const { cache, loads, revoked } = blobs(2);
    const urls: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const lease = cache.lease(`/screenshots/s/${name}.png`);
      loads.at(-1)?.resolve(new Blob([name]));
      urls.push(await lease.url);
      lease.release();
    }
    expect(revoked).toEqual(['blob:1']);
    // b is still loaded: no new load, same address.
    const again = cache.lease('/screenshots/s/b.png');
    expect(loads).toHaveLength(3);
    expect(await again.url).toBe(urls[1]);
    // A released lease released twice counts once; an image still shown is never revoked.
    again.release();
    again.release();
    const shown = cache.lease('/screenshots/s/c.png');
    for (const name of ['d', 'e', 'f']) {
      const lease = cache.lease(`/screenshots/s/${name}.png`);
      loads.at(-1)?.resolve(new Blob([name]));
      await lease.url;
      lease.release();
    }
    expect(revoked).not.toContain(urls[2]);
    expect(await shown.url).toBe(urls[2]);
  });

  it('aborts the loading of an image dropped before it arrived, and tries a failed one again', async () => {
    const { cache, loads, revoked } = blobs(0);
    const dropped = cache.lease('/screenshots/s/a.png');
    dropped.release();
    expect(loads[0]?.signal.aborted).toBe(true);
    loads[0]?.resolve(new Blob(['late']));
    await expect(dropped.url).rejects.toThrow();
    expect(revoked).toEqual([]);

    const failing = cache.lease('/screenshots/s/b.png');
    loads[1]?.reject(new Error('HTTP 500'));
    await expect(failing.url).rejects.toThrow('HTTP 500');
    await settle();
    const retry = cache.lease('/screenshots/s/b.png');
    expect(loads).toHaveLength(3);
    loads[2]?.resolve(new Blob(['b']));
    expect(await retry.url).toMatch(/^blob:/);
  });
});

describe('the browser-mode token leaves the address', () => {
  function tab(href: string, stored: Record<string, string> = {}) {
    const replaced: string[] = [];
    const storage: TabStorage & { items: Record<string, string> } = {
      items: { ...stored },
      getItem(key) {
        return this.items[key] ?? null;
      },
      setItem(key, value) {
        this.items[key] = value;
      },
    };
    const history = { state: { keep: 1 } as unknown, replaceState: (_state: unknown, _unused: string, url: string) => replaced.push(url) };
    return { address: { href }, history, storage, replaced };
  }

  it('takes the token out of the address, keeping the rest, and keeps it in the tab', () => {
    const page = tab('http://127.0.0.1:4000/?token=abc123&x=1#session-s1');
    expect(takePageToken(page.address, page.history, page.storage)).toBe('abc123');
    expect(page.replaced).toEqual(['/?x=1#session-s1']);
    expect(page.storage.items[TOKEN_STORAGE_KEY]).toBe('abc123');
  });

  it('finds the token again on a reload of the tab, and leaves the address alone', () => {
    const page = tab('http://127.0.0.1:4000/', { [TOKEN_STORAGE_KEY]: 'abc123' });
    expect(takePageToken(page.address, page.history, page.storage)).toBe('abc123');
    expect(page.replaced).toEqual([]);
  });

  it('prefers a token in the address (a new launch opened in the same tab)', () => {
    const page = tab('http://127.0.0.1:4000/?token=new', { [TOKEN_STORAGE_KEY]: 'old' });
    expect(takePageToken(page.address, page.history, page.storage)).toBe('new');
    expect(page.replaced).toEqual(['/']);
    expect(page.storage.items[TOKEN_STORAGE_KEY]).toBe('new');
  });

  it('works for this load where the tab may keep nothing', () => {
    const page = tab('http://127.0.0.1:4000/?token=abc123');
    const refusing: TabStorage = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(takePageToken(page.address, page.history, refusing)).toBe('abc123');
    expect(page.replaced).toEqual(['/']);
    expect(takePageToken({ href: 'http://127.0.0.1:4000/' }, page.history, null)).toBe('');
  });
});

describe('ElectronBridge', () => {
  function fakePreload(reply: (command: HostCommand) => unknown): {
    api: DeskhandPreloadApi;
    push(message: unknown): void;
  } {
    let listener: ((message: unknown) => void) | null = null;
    return {
      api: {
        invoke: (command) => Promise.resolve(reply(command as HostCommand)),
        onMessage: (callback) => {
          listener = callback;
          return () => {
            listener = null;
          };
        },
      },
      push: (message) => listener?.(message),
    };
  }

  it('refuses a command larger than the main process takes, with the same clear error, and sends nothing', async () => {
    const invoked: HostCommand[] = [];
    const preload = fakePreload((command) => {
      invoked.push(command);
      return { type: 'reply', id: command.id, ok: true, result: { sessionId: 's1', interactionId: 'q1' } };
    });
    const bridge = new ElectronBridge(preload.api);
    const answer = (text: string) => bridge.send({ type: 'interaction.answer', sessionId: 's1', interactionId: 'q1', answers: [text] });
    await expect(answer('€'.repeat(100_000))).rejects.toThrow(/^That is too large to send to Deskhand \(\d+ KB; at most 256 KB\)/);
    expect(invoked).toEqual([]);
    await answer('€'.repeat(80_000)).catch(() => undefined);
    expect(invoked).toHaveLength(1);
  });

  it('resolves the validated result of the invoke reply', async () => {
    const preload = fakePreload((command) => ({
      type: 'reply',
      id: command.id,
      ok: true,
      result: { session: sessionView },
    }));
    const bridge = new ElectronBridge(preload.api);
    await expect(bridge.send({ type: 'session.start', request: 'rename the PDFs' })).resolves.toEqual({ session: sessionView });
  });

  it("rejects with the host's message on ok:false", async () => {
    const preload = fakePreload((command) => ({
      type: 'reply',
      id: command.id,
      ok: false,
      error: { code: 'conflict', message: 'A session is already running' },
    }));
    const bridge = new ElectronBridge(preload.api);
    await expect(bridge.send({ type: 'session.start', request: 'x' })).rejects.toThrow('A session is already running');
  });

  it('gives up on a command the main process never answers', async () => {
    vi.useFakeTimers();
    try {
      const api: DeskhandPreloadApi = { invoke: () => new Promise(() => {}), onMessage: () => () => {} };
      const bridge = new ElectronBridge(api, 5_000);
      const deciding = bridge.send({ type: 'interaction.answer', sessionId: 's1', interactionId: 'i1', answers: ['yes'] });
      const outcome = deciding.then(
        () => 'resolved',
        (error: Error) => error.message,
      );
      vi.advanceTimersByTime(5_000);
      await expect(outcome).resolves.toMatch(/did not answer \(interaction\.answer\) within 5 s/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('delivers pushed events after start and stops on dispose', () => {
    const preload = fakePreload(() => null);
    const bridge = new ElectronBridge(preload.api);
    const events: HostEvent[] = [];
    bridge.onEvent((event) => events.push(event));
    bridge.start();
    preload.push({ type: 'event', event: startedEvent });
    bridge.dispose();
    preload.push({ type: 'event', event: startedEvent });
    expect(events).toEqual([startedEvent]);
  });

  it('shows screenshots from app://, which needs no token', async () => {
    const bridge = new ElectronBridge(fakePreload(() => null).api);
    await expect(bridge.screenshot({ sessionId: 's 1', file: 'a.png', width: 1, height: 1 }).url).resolves.toBe('app://screenshots/s%201/a.png');
  });
});

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import sharp from 'sharp';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { DeskhandConfig } from '../../src-main/host/config';
import { settingsSchema } from '../../src-main/host/settings-store';
import {
  FormView,
  HostCommand,
  HostEvent,
  Interaction,
  StepView,
  TERMINAL_SESSION_STATUSES,
  type BlackboardView,
  type ErrorCode,
  type HostMessage,
  type PauseCause,
  type ServerStatusView,
  type SessionStatus,
  type SessionView,
  type SettingsView,
  type StepViewInput,
} from '../../src-main/protocol';
import { makeSession } from './ui-fixtures';

/**
 * A scripted stand-in for the Deskhand host, for UI tests in a real browser: it serves the built
 * renderer (`out/renderer`) with the same URL / token scheme and security headers as
 * src-main/web/web-server.ts (`/?token=`, `/ws?token=`, screenshots with `Authorization: Bearer`), answers
 * protocol commands from in-memory state, lets the test push events, and records every command.
 */

export type CommandOf<T extends HostCommand['type']> = Extract<HostCommand, { type: T }>;
type Handler<T extends HostCommand['type']> = (command: CommandOf<T>) => unknown;
type HostEventInput = z.input<typeof HostEvent>;

/** Thrown by a handler: becomes an error reply with this code. */
export class FakeHostError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface FakeSession {
  view: SessionView;
  steps: StepView[];
  interactions: Interaction[];
  forms: FormView[];
  blackboard: BlackboardView;
}

export interface FakeSettings {
  schema: Record<string, unknown>;
  uischema: Record<string, unknown> | null;
  values: Record<string, unknown>;
  secrets: Record<string, { set: boolean; protected: boolean }>;
  /** What keys were written (the test may check them; the UI can never read them). */
  keys: Record<string, string>;
}

export interface FakeUiHost {
  /** The address to open: `http://127.0.0.1:PORT/?token=TOKEN`. */
  readonly url: string;
  readonly token: string;
  readonly sessions: Map<string, FakeSession>;
  readonly settings: FakeSettings;
  /** The user's MCP servers as `servers.status` and `servers.check` answer them (none by default). */
  readonly servers: ServerStatusView[];
  /** Every valid command received, in order. */
  readonly received: HostCommand[];
  /** Messages the host could not read (invalid commands), for failure messages. */
  readonly refused: string[];
  /** Sends an event to every connected page (validated against the protocol first). */
  push(event: HostEventInput): void;
  /** Replaces the default answer to one command type. */
  handle<T extends HostCommand['type']>(type: T, handler: Handler<T>): void;
  commands<T extends HostCommand['type']>(type: T): CommandOf<T>[];
  waitForCommand<T extends HostCommand['type']>(type: T, predicate?: (command: CommandOf<T>) => boolean, timeoutMs?: number): Promise<CommandOf<T>>;
  /** Adds a stored session (as if from an earlier run), without an event. */
  addSession(view: SessionView, steps?: StepView[]): FakeSession;
  /** Stores a step and sends `step.added` (and `session.updated` with the new count). */
  addStep(input: StepViewInput): StepView;
  /** Stores many steps and sends them as events in one go (fast, for big trajectories). */
  addSteps(inputs: StepViewInput[]): void;
  setStatus(sessionId: string, status: SessionStatus, detail?: string, pause?: PauseCause): void;
  end(sessionId: string, status: SessionStatus, result?: string | null): void;
  /** Stores an interaction and sends `interaction.requested` (and the session goes to 'waiting'). */
  requestInteraction(input: z.input<typeof Interaction>): Interaction;
  /** Stores a form (create, update or close) and sends `form.updated`; the spec is not checked here (the UI must). */
  upsertForm(input: z.input<typeof FormView>): FormView;
  close(): Promise<void>;
}

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/** The same headers the real browser-mode server sends, so CSP problems show up in these tests too. */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

const TOKEN_COOKIE = 'deskhand_token';
const RENDERER_DIR = resolve('out/renderer');

function bearerToken(request: IncomingMessage): string | null {
  const auth = request.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : null;
}

function cookieToken(request: IncomingMessage): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === TOKEN_COOKIE) return rest.join('=');
  }
  return null;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A made-up desktop: a window with a title, some text lines, and for "annotated" files a red mark on the action. */
async function drawScreenshot(file: string): Promise<Buffer> {
  const annotated = file.includes('annotated');
  const label = escapeXml(file.replace(/\.[a-z]+$/, ''));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="800">
    <rect width="1280" height="800" fill="#2d4a6b"/>
    <rect x="120" y="80" width="1040" height="620" rx="8" fill="#f4f4f4"/>
    <rect x="120" y="80" width="1040" height="44" rx="8" fill="#d9dde3"/>
    <text x="150" y="110" font-family="sans-serif" font-size="22" fill="#222">Text Editor: report.txt</text>
    ${[0, 1, 2, 3, 4, 5].map((i) => `<rect x="160" y="${170 + i * 48}" width="${700 - i * 60}" height="18" fill="#b9c2cc"/>`).join('')}
    <text x="160" y="660" font-family="monospace" font-size="20" fill="#555">${label}</text>
    ${annotated ? '<circle cx="200" cy="300" r="34" fill="none" stroke="#e53935" stroke-width="8"/><text x="244" y="290" font-family="sans-serif" font-size="26" fill="#e53935">type here</text>' : ''}
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

function viewOfSettings(settings: FakeSettings): SettingsView {
  return { schema: settings.schema, uischema: settings.uischema, values: settings.values, secrets: settings.secrets };
}

export async function startFakeUiHost(options: { rendererDir?: string } = {}): Promise<FakeUiHost> {
  const rendererDir = options.rendererDir ?? RENDERER_DIR;
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new Error(`the renderer is not built (${rendererDir}): run \`npm run build\` (npm test does)`);
  }
  const token = randomBytes(18).toString('base64url');
  const sockets = new Set<WebSocket>();
  const sessions = new Map<string, FakeSession>();
  const received: HostCommand[] = [];
  const refused: string[] = [];
  const waiters = new Set<() => void>();
  const screenshotCache = new Map<string, Promise<Buffer>>();
  let sessionCounter = 0;
  let interactionCounter = 0;

  const settings: FakeSettings = {
    schema: settingsSchema(),
    uischema: null,
    values: DeskhandConfig.parse({
      models: { host: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-vl' } },
    }) as unknown as Record<string, unknown>,
    secrets: { host: { set: true, protected: false }, app: { set: false, protected: false } },
    keys: { host: 'sk-stored-secret' },
  };

  const servers: ServerStatusView[] = [];

  const broadcast = (message: HostMessage): void => {
    const text = JSON.stringify(message);
    for (const socket of sockets) if (socket.readyState === socket.OPEN) socket.send(text);
  };

  const push = (input: HostEventInput): void => {
    broadcast({ type: 'event', event: HostEvent.parse(input) });
  };

  const sessionOf = (sessionId: string): FakeSession => {
    const session = sessions.get(sessionId);
    if (!session) throw new FakeHostError('not_found', `no session ${sessionId}`);
    return session;
  };

  const touch = (session: FakeSession, change: Partial<SessionView> = {}): void => {
    session.view = { ...session.view, ...change, updatedAt: Date.now() };
  };

  const addSession = (view: SessionView, steps: StepView[] = []): FakeSession => {
    const session: FakeSession = {
      view: { ...view, stepCount: Math.max(view.stepCount, steps.length) },
      steps: [...steps],
      interactions: [],
      forms: [],
      blackboard: { questions: [], requests: [view.request], trajectories: [], screenshots: [] },
    };
    sessions.set(view.id, session);
    return session;
  };

  const storeStep = (input: StepViewInput): { session: FakeSession; step: StepView } => {
    const step = StepView.parse(input);
    const session = sessionOf(step.sessionId);
    session.steps.push(step);
    const tokens = {
      prompt: session.view.tokens.prompt + step.tokens.prompt,
      completion: session.view.tokens.completion + step.tokens.completion,
    };
    const costUsd = step.costUsd === null ? session.view.costUsd : (session.view.costUsd ?? 0) + step.costUsd;
    touch(session, { stepCount: session.steps.length, tokens, costUsd });
    session.blackboard.trajectories.push({ Step: step.index + 1, Agent: step.agent, Action: step.actionText, Status: step.status });
    return { session, step };
  };

  const setStatus = (sessionId: string, status: SessionStatus, detail = '', pause?: PauseCause): void => {
    const session = sessionOf(sessionId);
    touch(session, { status });
    push({ kind: 'status.changed', sessionId, status, detail, ...(pause ? { pause } : {}) });
  };

  const end = (sessionId: string, status: SessionStatus, result: string | null = null): void => {
    const session = sessionOf(sessionId);
    touch(session, { status, result });
    session.interactions = [];
    push({ kind: 'session.ended', sessionId, status, result });
  };

  const handlers: { [T in HostCommand['type']]?: Handler<T> } = {};
  const defaults: { [T in HostCommand['type']]: Handler<T> } = {
    'session.start': (command) => {
      sessionCounter += 1;
      const view = makeSession(`s${sessionCounter}-${randomBytes(3).toString('hex')}`, {
        title: command.request.slice(0, 60),
        request: command.request,
        mode: command.mode,
        maxSteps: 30,
      });
      addSession(view);
      push({ kind: 'session.started', session: view });
      return { session: view };
    },
    'session.continue': (command) => {
      const session = sessionOf(command.sessionId);
      if (!TERMINAL_SESSION_STATUSES.has(session.view.status)) throw new FakeHostError('conflict', 'the session is still running');
      touch(session, { status: 'running', roundCount: session.view.roundCount + 1, result: null });
      session.blackboard.requests.push(command.request);
      push({ kind: 'session.updated', session: session.view });
      return { session: session.view };
    },
    'session.stop': (command) => {
      const session = sessionOf(command.sessionId);
      const active = !TERMINAL_SESSION_STATUSES.has(session.view.status);
      if (active) end(command.sessionId, 'stopped', 'Stopped by you');
      return { sessionId: command.sessionId, stopped: active };
    },
    'session.pause': (command) => {
      const session = sessionOf(command.sessionId);
      const pausable = session.view.status === 'running' || session.view.status === 'waiting';
      if (pausable) setStatus(command.sessionId, 'paused', 'Paused by you', 'user');
      return { sessionId: command.sessionId, paused: pausable };
    },
    'session.resume': (command) => {
      const session = sessionOf(command.sessionId);
      if (session.view.status !== 'paused' && session.view.status !== 'interrupted') {
        throw new FakeHostError('conflict', 'the session is not paused or interrupted');
      }
      setStatus(command.sessionId, 'running', 'Resumed');
      return { session: session.view };
    },
    'session.list': (command) => {
      const query = command.query?.toLowerCase() ?? '';
      const views = [...sessions.values()]
        .map((session) => session.view)
        .filter((view) => !query || view.title.toLowerCase().includes(query) || view.request.toLowerCase().includes(query));
      return { sessions: views };
    },
    'session.open': (command) => {
      const session = sessionOf(command.sessionId);
      const rounds = session.blackboard.requests.map((request, index) => ({ index, request, status: session.view.status, result: null }));
      return { session: session.view, rounds, steps: session.steps, interactions: session.interactions, forms: session.forms };
    },
    'session.delete': (command) => {
      sessionOf(command.sessionId);
      sessions.delete(command.sessionId);
      push({ kind: 'session.deleted', sessionId: command.sessionId });
      return { sessionId: command.sessionId };
    },
    'session.rename': (command) => {
      const session = sessionOf(command.sessionId);
      // As the real host: the title checked by the protocol (trimmed), the time of the session kept.
      session.view = { ...session.view, title: command.title };
      push({ kind: 'session.updated', session: session.view });
      return { session: session.view };
    },
    'session.export': (command) => {
      const session = sessionOf(command.sessionId);
      return {
        fileName: `deskhand-${command.sessionId}.json`,
        json: JSON.stringify({ format: 'deskhand-session', session: session.view, steps: session.steps }, null, 2),
      };
    },
    'step.detail': (command) => {
      const step = sessionOf(command.sessionId).steps.find((candidate) => candidate.id === command.stepId);
      if (!step) throw new FakeHostError('not_found', `no step ${command.stepId}`);
      const reply = { Observation: step.observation, Thought: step.thought, Function: step.action?.function ?? '', Status: step.status };
      return { step, modelReply: JSON.stringify(reply), promptText: `<request>${sessionOf(command.sessionId).view.request}</request>` };
    },
    'blackboard.get': (command) => sessionOf(command.sessionId).blackboard,
    'interaction.answer': (command) => {
      const session = sessionOf(command.sessionId);
      const interaction = session.interactions.find((candidate) => candidate.id === command.interactionId);
      if (!interaction || interaction.kind !== 'questions') throw new FakeHostError('not_found', `no questions ${command.interactionId}`);
      if (command.answers.length !== interaction.questions.length) {
        throw new FakeHostError('bad_message', `expected ${interaction.questions.length} answers, got ${command.answers.length}`);
      }
      session.interactions = session.interactions.filter((candidate) => candidate !== interaction);
      interaction.questions.forEach((question, i) => session.blackboard.questions.push({ question, answer: command.answers[i] ?? '' }));
      push({ kind: 'interaction.resolved', sessionId: command.sessionId, interactionId: interaction.id, outcome: 'answered' });
      setStatus(command.sessionId, 'running', 'Going on with your answers');
      return {};
    },
    'interaction.decide': (command) => {
      const session = sessionOf(command.sessionId);
      const interaction = session.interactions.find((candidate) => candidate.id === command.interactionId);
      if (!interaction || interaction.kind !== 'confirm') throw new FakeHostError('not_found', `no confirmation ${command.interactionId}`);
      session.interactions = session.interactions.filter((candidate) => candidate !== interaction);
      push({
        kind: 'interaction.resolved',
        sessionId: command.sessionId,
        interactionId: interaction.id,
        outcome: command.approved ? 'approved' : 'rejected',
      });
      setStatus(command.sessionId, 'running', command.approved ? 'Approved: acting' : 'Rejected: the action did not run');
      return {};
    },
    'form.event': (command) => {
      const form = sessionOf(command.sessionId).forms.find((candidate) => candidate.formId === command.formId);
      if (!form) throw new FakeHostError('not_found', `no form ${command.formId}`);
      if (form.state === 'closed') throw new FakeHostError('conflict', 'the form is closed');
      return {};
    },
    'settings.get': () => viewOfSettings(settings),
    'settings.set': (command) => {
      const parsed = DeskhandConfig.safeParse(command.values);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new FakeHostError('bad_message', `invalid command: values.${issue?.path.join('.')}: ${issue?.message}`);
      }
      settings.values = parsed.data as unknown as Record<string, unknown>;
      for (const [profile, key] of Object.entries(command.secrets ?? {})) {
        const entry = settings.secrets[profile] ?? { set: false, protected: false };
        if (key === '') delete settings.keys[profile];
        else settings.keys[profile] = key;
        settings.secrets[profile] = { ...entry, set: key !== '' };
      }
      return viewOfSettings(settings);
    },
    'servers.status': () => ({ servers }),
    'servers.check': () => ({ servers }),
  };

  const dispatch = async (command: HostCommand): Promise<unknown> => {
    const handler = (handlers[command.type] ?? defaults[command.type]) as Handler<typeof command.type>;
    return handler(command as never);
  };

  const onMessage = async (socket: WebSocket, text: string): Promise<void> => {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      refused.push(text);
      socket.send(JSON.stringify({ type: 'reply', id: null, ok: false, error: { code: 'bad_message', message: 'not JSON' } }));
      return;
    }
    const id = typeof (raw as { id?: unknown })?.id === 'string' ? (raw as { id: string }).id : null;
    const parsed = HostCommand.safeParse(raw);
    if (!parsed.success) {
      refused.push(text);
      const issue = parsed.error.issues[0];
      const message = `invalid command: ${issue?.path.join('.')}: ${issue?.message}`;
      socket.send(JSON.stringify({ type: 'reply', id, ok: false, error: { code: 'bad_message', message } }));
      return;
    }
    received.push(parsed.data);
    for (const wake of [...waiters]) wake();
    let reply: HostMessage;
    try {
      reply = { type: 'reply', id: parsed.data.id, ok: true, result: await dispatch(parsed.data) };
    } catch (error) {
      const code = error instanceof FakeHostError ? error.code : 'internal';
      reply = { type: 'reply', id: parsed.data.id, ok: false, error: { code, message: (error as Error).message } };
    }
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(reply));
  };

  const serveHttp = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    const presented = url.searchParams.get('token') ?? bearerToken(request) ?? cookieToken(request);
    if (presented !== token) {
      response.writeHead(401, { 'Content-Type': 'text/plain', ...SECURITY_HEADERS }).end('Unauthorized');
      return;
    }
    const shot = /^\/screenshots\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (shot) {
      const file = decodeURIComponent(shot[2] ?? '');
      if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(file)) {
        response.writeHead(404, SECURITY_HEADERS).end();
        return;
      }
      let image = screenshotCache.get(file);
      if (!image) {
        image = drawScreenshot(file);
        screenshotCache.set(file, image);
      }
      response.writeHead(200, { 'Content-Type': 'image/png', 'Cache-Control': 'no-store', ...SECURITY_HEADERS }).end(await image);
      return;
    }
    const isPage = url.pathname === '/' || url.pathname === '/index.html';
    const path = normalize(join(rendererDir, isPage ? 'index.html' : decodeURIComponent(url.pathname)));
    if (!path.startsWith(rendererDir + sep) || !existsSync(path)) {
      response.writeHead(404, SECURITY_HEADERS).end('Not Found');
      return;
    }
    const headers: Record<string, string> = { 'Content-Type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream', ...SECURITY_HEADERS };
    if (isPage) headers['Set-Cookie'] = `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
    response.writeHead(200, headers).end(await readFile(path));
  };

  const server = createServer((request, response) => {
    serveHttp(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    const presented = url.searchParams.get('token') ?? cookieToken(request);
    if (url.pathname !== '/ws' || presented !== token) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('message', (data) => void onMessage(ws, data.toString()));
      ws.on('close', () => sockets.delete(ws));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;

  const host: FakeUiHost = {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    token,
    sessions,
    settings,
    servers,
    received,
    refused,
    push,
    handle(type, handler) {
      (handlers as Record<string, unknown>)[type] = handler;
    },
    commands<T extends HostCommand['type']>(type: T) {
      return received.filter((command): command is CommandOf<T> => command.type === type);
    },
    waitForCommand<T extends HostCommand['type']>(type: T, predicate: (command: CommandOf<T>) => boolean = () => true, timeoutMs = 10_000) {
      return new Promise<CommandOf<T>>((done, fail) => {
        const check = (): boolean => {
          const found = host.commands(type).find(predicate);
          if (!found) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          done(found);
          return true;
        };
        const wake = (): void => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          const seen = received.map((command) => command.type).join(', ');
          fail(new Error(`no ${type} command within ${timeoutMs} ms; received: ${seen || 'nothing'}; refused: ${refused.join(' | ') || 'nothing'}`));
        }, timeoutMs);
        waiters.add(wake);
        check();
      });
    },
    addSession,
    addStep(input) {
      const { session, step } = storeStep(input);
      push({ kind: 'step.added', step });
      push({ kind: 'session.updated', session: session.view });
      return step;
    },
    addSteps(inputs) {
      const touched = new Set<FakeSession>();
      const messages: string[] = [];
      for (const input of inputs) {
        const { session, step } = storeStep(input);
        touched.add(session);
        messages.push(JSON.stringify({ type: 'event', event: { kind: 'step.added', step } }));
      }
      for (const socket of sockets) for (const message of messages) socket.send(message);
      for (const session of touched) push({ kind: 'session.updated', session: session.view });
    },
    setStatus,
    end,
    requestInteraction(input) {
      interactionCounter += 1;
      const interaction = Interaction.parse({ ...input, id: input.id || `i${interactionCounter}` });
      const session = sessionOf(interaction.sessionId);
      session.interactions.push(interaction);
      push({ kind: 'interaction.requested', interaction });
      setStatus(interaction.sessionId, 'waiting', interaction.kind === 'confirm' ? 'Waiting for your approval' : 'Waiting for your answers');
      return interaction;
    },
    upsertForm(input) {
      const form = FormView.parse(input);
      const session = sessionOf(form.sessionId);
      const at = session.forms.findIndex((candidate) => candidate.formId === form.formId);
      if (at === -1) session.forms.push(form);
      else session.forms[at] = form;
      push({ kind: 'form.updated', form });
      return form;
    },
    async close() {
      for (const socket of sockets) socket.terminate();
      wss.close();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
  return host;
}

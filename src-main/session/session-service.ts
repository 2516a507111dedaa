import { join } from 'node:path';
import type { ModelWithPrices } from '../agents/runtime';
import type { BlackboardStore } from '../memory/blackboard-store';
import type { InteractionStore } from '../memory/interaction-store';
import type { ScreenshotFiles } from '../memory/screenshot-files';
import { DamagedSessionError, type SessionStore } from '../memory/session-store';
import {
  type BlackboardView,
  type CommandResult,
  type DatabaseRepairView,
  type HostCommand,
  type HostCommandType,
  type HostEvent,
  type ScreenshotRef,
  type SessionMode,
  type SessionView,
} from '../protocol';
import { ActiveSession, type RunOutcome, type SessionDeps } from './active-session';
import { CommandError } from './command-error';
import { failureMessage } from './failure-message';
import type { InteractionBroker } from './interaction-broker';
import { logError } from '../common/log';

export { CommandError };

/** Settings commands are answered by the host's settings module (it knows where secrets live). */
export interface SettingsHandler {
  get(): Promise<CommandResult<'settings.get'>>;
  set(values: Record<string, unknown>, secrets: Record<string, string> | undefined): Promise<CommandResult<'settings.set'>>;
}

/** The user's own MCP servers, as Settings shows them: answered by the host (it holds the servers and the secrets to scrub). */
export interface ServerStatusHandler {
  status(): CommandResult<'servers.status'>;
  check(): Promise<CommandResult<'servers.check'>>;
}

export interface SessionServiceDeps extends Omit<SessionDeps, 'emit'> {
  store: SessionStore;
  blackboards: BlackboardStore;
  interactions: InteractionStore;
  screenshots: ScreenshotFiles;
  broker: InteractionBroker;
  settings: SettingsHandler | null;
  servers: ServerStatusHandler;
  /** What start-up did with a damaged database, for the sessions list to say. */
  repair: DatabaseRepairView | null;
}

type Listener = (event: HostEvent) => void;

/** Answers the protocol's commands and runs sessions, one at a time (there is one desktop). */
export class SessionService {
  private readonly listeners = new Set<Listener>();
  /**
   * The one session in memory: the one whose round runs. It is dropped when the round ends (its
   * blackboard, agents and their histories with it) and built again from the store for the next round.
   */
  private runningSession: ActiveSession | null = null;
  /** Set by shutdown: no round may start while the device and the database are being closed. */
  private closing = false;
  private readonly sessionDeps: SessionDeps;

  constructor(private readonly deps: SessionServiceDeps) {
    // A getter, not a copy: settings changed while Deskhand runs apply from the next round on.
    this.sessionDeps = Object.defineProperty({ ...deps, emit: (event: HostEvent) => this.emit(event) }, 'config', {
      get: () => deps.config,
    });
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The round in progress, if any (the CLI, tests and shutdown wait on it). */
  get running(): Promise<RunOutcome> | null {
    return this.runningSession?.running ?? null;
  }

  get runningSessionId(): string | null {
    return this.runningSession?.sessionId ?? null;
  }

  async handle<T extends HostCommandType>(command: Extract<HostCommand, { type: T }>): Promise<CommandResult<T>> {
    return (await this.dispatch(command as HostCommand)) as CommandResult<T>;
  }

  async shutdown(): Promise<void> {
    this.closing = true;
    const session = this.runningSession;
    session?.stop();
    await session?.running;
  }

  /** What a command that failed is reported as: a damaged database or a full disk with what to do about it. */
  describeFailure(error: unknown): string {
    return failureMessage(error, this.deps.disk);
  }

  /** Every event goes out here (the sessions', the broker's, the forms'), scrubbed once for all listeners. */
  emit(event: HostEvent): void {
    const clean = this.deps.scrub(event);
    for (const listener of this.listeners) {
      try {
        listener(clean);
      } catch (error) {
        // A broken UI connection must not stop the run; it is reported, not hidden.
        logError('[deskhand] an event listener failed:', error);
      }
    }
  }

  private async dispatch(command: HostCommand): Promise<CommandResult<HostCommandType>> {
    const { store } = this.deps;
    switch (command.type) {
      case 'session.start': {
        const models = this.models();
        this.ensureIdle();
        const session = store.createSession(command.request, command.mode);
        this.emit({ kind: 'session.started', session });
        try {
          this.begin(this.activate(session), command.request, models);
        } catch (error) {
          this.endUnstarted(session.id, error);
          throw error;
        }
        return { session: store.requireSession(session.id) };
      }
      case 'session.continue': {
        const session = this.requireSession(command.sessionId);
        const models = this.models();
        this.ensureIdle();
        if (session.status === 'interrupted') throw new CommandError('conflict', 'this session was interrupted: resume it first');
        this.begin(this.activate(session), command.request, models);
        return { session: store.requireSession(session.id) };
      }
      case 'session.resume': {
        const session = this.requireSession(command.sessionId);
        const live = this.live(session.id);
        if (live?.running) {
          if (!live.resumeRun()) throw new CommandError('conflict', 'this session is running and not paused');
          return { session: this.withLiveStatus(store.requireSession(session.id)) };
        }
        if (session.status !== 'interrupted') throw new CommandError('conflict', `a ${session.status} session cannot be resumed; send a follow-up instead`);
        const models = this.models();
        this.ensureIdle();
        const lastRequest = store.rounds(session.id).at(-1)?.request ?? session.request;
        this.begin(this.activate(session), lastRequest, models, { resumed: true });
        return { session: store.requireSession(session.id) };
      }
      case 'session.stop':
        this.requireSession(command.sessionId);
        return { sessionId: command.sessionId, stopped: this.live(command.sessionId)?.stop() ?? false };
      case 'session.pause':
        this.requireSession(command.sessionId);
        return { sessionId: command.sessionId, paused: this.live(command.sessionId)?.pauseRun('Paused by you', 'user') ?? false };
      case 'session.list': {
        const entries = store.listEntries(200, command.query);
        return { ...entries, sessions: entries.sessions.map((session) => this.withLiveStatus(session)), repair: this.deps.repair };
      }
      case 'session.open': {
        const session = this.withLiveStatus(this.requireSession(command.sessionId));
        return {
          session,
          rounds: store.rounds(session.id).map((round) => ({ index: round.idx, request: round.request, status: round.status, result: round.result })),
          steps: store.steps(session.id),
          interactions: this.deps.scrub(this.deps.broker.pending(session.id)),
          forms: this.deps.interactions.forms(session.id),
          pause: this.live(session.id)?.pausedFor ?? null,
        };
      }
      case 'session.delete':
        return this.delete(command.sessionId);
      case 'session.rename':
        return this.rename(command.sessionId, command.title);
      case 'session.export':
        return this.export(command.sessionId);
      case 'step.detail': {
        const detail = store.step(command.sessionId, command.stepId);
        if (!detail) throw new CommandError('not_found', 'no such step in that session');
        return detail;
      }
      case 'blackboard.get':
        return this.blackboardView(command.sessionId);
      case 'interaction.answer':
        return this.respond(command.sessionId, command.interactionId, { kind: 'answers', answers: command.answers });
      case 'interaction.decide':
        return this.respond(command.sessionId, command.interactionId, {
          kind: 'decision',
          approved: command.approved,
          note: command.note ?? null,
        });
      case 'form.event': {
        const live = this.live(command.sessionId);
        if (!live) {
          this.requireSession(command.sessionId);
          // Forms are closed when a round ends: a session that does not run has none open.
          throw new CommandError('conflict', 'that form is closed or unknown');
        }
        live.forms.handleEvent(command.formId, command.path, command.value, command.action);
        return {};
      }
      case 'settings.get':
        return this.settings().get();
      case 'settings.set':
        return this.settings().set(command.values, command.secrets);
      case 'servers.status':
        return this.deps.servers.status();
      case 'servers.check':
        return this.deps.servers.check();
    }
  }

  private settings(): SettingsHandler {
    if (!this.deps.settings) throw new CommandError('unavailable', 'settings cannot be changed in this mode');
    return this.deps.settings;
  }

  private models(): { host: ModelWithPrices; app: ModelWithPrices } {
    try {
      return this.deps.models();
    } catch (error) {
      throw new CommandError('unavailable', (error as Error).message);
    }
  }

  private ensureIdle(): void {
    if (this.closing) throw new CommandError('unavailable', 'Deskhand is shutting down: no new run can start');
    if (this.runningSession) throw new CommandError('conflict', 'a session is already running: stop it or wait until it ends');
  }

  private requireSession(sessionId: string): SessionView {
    const session = this.storedSession(sessionId);
    if (session instanceof DamagedSessionError) {
      throw new CommandError('conflict', `this session is damaged and cannot be opened or continued, only deleted (${session.problem})`);
    }
    return session;
  }

  /** The session as stored, or why its row does not read as one (it can still be deleted). */
  private storedSession(sessionId: string): SessionView | DamagedSessionError {
    let session: SessionView | null;
    try {
      session = this.deps.store.getSession(sessionId);
    } catch (error) {
      if (error instanceof DamagedSessionError) return error;
      throw error;
    }
    if (!session) throw new CommandError('not_found', `no session with id ${sessionId}`);
    return session;
  }

  /** A session as it stands: the status its run is in, when a full disk kept that from the store. */
  private withLiveStatus(session: SessionView): SessionView {
    return this.live(session.id)?.asItStands(session) ?? session;
  }

  private live(sessionId: string): ActiveSession | null {
    return this.runningSession?.sessionId === sessionId ? this.runningSession : null;
  }

  /** Builds the session from the store for a new round (called only when none is running). */
  private activate(session: SessionView): ActiveSession {
    if (session.status === 'interrupted') this.deps.interactions.cancelOpen(session.id);
    return new ActiveSession(this.sessionDeps, session);
  }

  private begin(live: ActiveSession, request: string, models: { host: ModelWithPrices; app: ModelWithPrices }, options: { resumed?: boolean } = {}): void {
    // Set before the round starts (it emits events that ask who runs), and cleared if it cannot start.
    this.runningSession = live;
    let running: Promise<RunOutcome>;
    try {
      running = live.startRound(request, models, options);
    } catch (error) {
      this.runningSession = null;
      throw error;
    }
    void running.finally(() => {
      if (this.runningSession === live) this.runningSession = null;
    });
  }

  /**
   * A new session whose first round could not start (the database refused it, say) would otherwise
   * say "running" with nothing running: it ends in error, with the reason, when that can be written.
   */
  private endUnstarted(sessionId: string, error: unknown): void {
    const reason = `the run could not start: ${this.describeFailure(error)}`;
    try {
      this.deps.store.setStatus(sessionId, 'error', reason);
      this.emit({ kind: 'session.ended', sessionId, status: 'error', result: reason });
    } catch (failure) {
      logError(`[deskhand] session ${sessionId} could not be marked as not started: ${(failure as Error).message}`);
    }
  }

  private respond(sessionId: string, interactionId: string, response: Parameters<InteractionBroker['respond']>[2]): Record<string, never> {
    this.deps.broker.respond(sessionId, interactionId, response);
    return {};
  }

  /** A running session can be renamed too: its run reads the session from the store, title and all. */
  private rename(sessionId: string, title: string): { session: SessionView } {
    const stored = this.storedSession(sessionId);
    if (stored instanceof DamagedSessionError) {
      throw new CommandError('conflict', `this session is damaged and cannot be renamed, only deleted (${stored.problem})`);
    }
    const session = this.withLiveStatus(this.deps.store.renameSession(sessionId, title));
    // Every connected window (and the desktop app's tray and notifications) shows the new title.
    this.emit({ kind: 'session.updated', session });
    return { session };
  }

  private async delete(sessionId: string): Promise<{ sessionId: string }> {
    this.storedSession(sessionId);
    // Only the round in memory runs (the data folder's lock keeps other hosts out): a stored status that
    // still says running is one whose end could not be saved, and is gone at the next start anyway.
    if (this.runningSession?.sessionId === sessionId) throw new CommandError('conflict', 'stop the session before deleting it');
    this.deps.store.deleteSession(sessionId);
    this.runningSession?.blackboard.forgetCarriedFrom(sessionId);
    this.deps.screenshots.forget(sessionId);
    // Gone from the store, so gone from every UI, whatever becomes of its files.
    this.emit({ kind: 'session.deleted', sessionId });
    const folder = join(this.deps.screenshots.root, sessionId);
    try {
      await this.deps.screenshots.removeFolder(sessionId);
    } catch (error) {
      throw new Error(`the session was deleted, but its screenshots could not be removed from ${folder}: ${(error as Error).message}`);
    }
    return { sessionId };
  }

  private blackboardView(sessionId: string): BlackboardView {
    this.requireSession(sessionId);
    // From the store, not the live blackboard: that one also holds Q&A pairs carried from other sessions.
    const board = this.deps.blackboards.load(sessionId, 0);
    return {
      questions: board.questions.all().map((item) => ({ question: String(item.get('question')), answer: String(item.get('answer')) })),
      requests: board.requests.all().map((item) => String(item.get('request'))),
      trajectories: board.trajectories.toJSON(),
      screenshots: board.screenshots.all().map((item) => ({ screenshot: item.get('screenshot') as ScreenshotRef, reason: String(item.get('reason')) })),
    };
  }

  /**
   * One JSON document: the session, its rounds, steps, blackboard and forms. No settings, no keys: what is
   * stored was scrubbed when saved, but a key may have been added since (or the data written by an older
   * Deskhand); so the whole document goes through the scrubber as it is now.
   */
  private export(sessionId: string): { fileName: string; json: string } {
    const session = this.requireSession(sessionId);
    const steps = this.deps.store.stepsWithReplies(sessionId);
    const document = {
      format: 'deskhand-session',
      version: 1,
      exportedAt: new Date().toISOString(),
      session,
      rounds: this.deps.store.rounds(sessionId),
      steps,
      blackboard: this.blackboardView(sessionId),
      forms: this.deps.interactions.forms(sessionId),
    };
    const stamp = new Date(session.createdAt).toISOString().slice(0, 10);
    // Values first (a key with characters JSON escapes is still found), then the text (object keys too).
    const json = this.deps.scrub(JSON.stringify(this.deps.scrub(document), null, 2));
    return { fileName: `deskhand-session-${stamp}-${session.id.slice(0, 8)}.json`, json };
  }
}

export type { SessionMode };

import type { AppAgent } from '../agents/app-agent';
import type { ScreenshotFiles } from '../memory/screenshot-files';
import type { SessionStore } from '../memory/session-store';
import type { CommandResult, HostCommand, HostCommandType, HostEvent, SessionMode } from '../protocol';
import { SessionRun, type RunOutcome } from './session-run';

export class CommandError extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict' | 'unavailable',
    message: string,
  ) {
    super(message);
  }
}

export interface SessionServiceDeps {
  store: SessionStore;
  screenshots: ScreenshotFiles;
  /** Builds the agent for a run; throws a clear error when something it needs (a model) is missing. */
  createAgent(mode: SessionMode): Promise<AppAgent>;
  limits: { maxStepsPerRound: number; maxConsecutiveErrors: number };
}

type Listener = (event: HostEvent) => void;

/** Answers the protocol's session commands and runs sessions, one at a time (there is one desktop). */
export class SessionService {
  private readonly listeners = new Set<Listener>();
  private current: SessionRun | null = null;

  constructor(private readonly deps: SessionServiceDeps) {}

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The run in progress, if any (tests and shutdown wait on it). */
  get running(): Promise<RunOutcome> | null {
    return this.current?.done ?? null;
  }

  async handle<T extends HostCommandType>(command: Extract<HostCommand, { type: T }>): Promise<CommandResult<T>> {
    return (await this.dispatch(command as HostCommand)) as CommandResult<T>;
  }

  async shutdown(): Promise<void> {
    const run = this.current;
    run?.stop();
    await run?.done.catch(() => undefined);
  }

  private async dispatch(command: HostCommand): Promise<CommandResult<HostCommandType>> {
    switch (command.type) {
      case 'session.start':
        return { session: await this.start(command.request, command.mode) };
      case 'session.stop':
        return { sessionId: command.sessionId, stopped: this.stop(command.sessionId) };
      case 'session.list':
        return { sessions: this.deps.store.listSessions() };
      case 'session.open': {
        const session = this.deps.store.getSession(command.sessionId);
        if (!session) throw new CommandError('not_found', `no session with id ${command.sessionId}`);
        return { session, steps: this.deps.store.steps(command.sessionId), interactions: [], forms: [] };
      }
      default:
        throw new CommandError('unavailable', `${command.type} is not available in this build yet`);
    }
  }

  private async start(request: string, mode: SessionMode) {
    if (this.current) {
      throw new CommandError('conflict', 'a session is already running: stop it or wait until it ends');
    }
    let agent: AppAgent;
    try {
      agent = await this.deps.createAgent(mode);
    } catch (error) {
      throw new CommandError('unavailable', (error as Error).message);
    }
    // Checked again: another start may have won while the agent was being built.
    if (this.current) throw new CommandError('conflict', 'a session is already running: stop it or wait until it ends');
    const session = this.deps.store.createSession(request, mode);
    this.emit({ kind: 'session.started', session });
    const run = new SessionRun(
      {
        store: this.deps.store,
        screenshots: this.deps.screenshots,
        agent,
        emit: (event) => this.emit(event),
        limits: this.deps.limits,
      },
      session.id,
      request,
    );
    this.current = run;
    void run.done
      .catch(() => undefined)
      .finally(() => {
        if (this.current === run) this.current = null;
      });
    return session;
  }

  private stop(sessionId: string): boolean {
    if (!this.deps.store.getSession(sessionId)) throw new CommandError('not_found', `no session with id ${sessionId}`);
    if (this.current?.sessionId !== sessionId) return false;
    this.current.stop();
    return true;
  }

  private emit(event: HostEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // A broken UI connection must not stop the run; it is reported, not hidden.
        console.error('[deskhand] an event listener failed:', error);
      }
    }
  }
}

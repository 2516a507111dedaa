import { StepAborted, type AppAgent } from '../agents/app-agent';
import type { ScreenshotFiles } from '../memory/screenshot-files';
import type { SessionStore } from '../memory/session-store';
import type { HostEvent, SessionStatus, StepView } from '../protocol';

export interface SessionRunDeps {
  store: SessionStore;
  screenshots: ScreenshotFiles;
  agent: AppAgent;
  emit(event: HostEvent): void;
  limits: { maxStepsPerRound: number; maxConsecutiveErrors: number };
}

export interface RunOutcome {
  status: SessionStatus;
  result: string | null;
}

/**
 * The run loop of one round: step, persist, tell the UI, until the agent finishes or fails, too many
 * errors in a row, the step limit, or Stop. Each step is committed before the next begins.
 */
export class SessionRun {
  private readonly abort = new AbortController();
  readonly done: Promise<RunOutcome>;

  constructor(
    private readonly deps: SessionRunDeps,
    readonly sessionId: string,
    private readonly request: string,
    history: StepView[] = [],
  ) {
    this.done = this.loop(history).then(
      (outcome) => this.end(outcome),
      (error: unknown) => this.end({ status: 'error', result: `internal error: ${(error as Error).message}` }),
    );
  }

  get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  stop(): void {
    if (this.abort.signal.aborted) return;
    this.abort.abort(new StepAborted());
    this.deps.emit({ kind: 'status.changed', sessionId: this.sessionId, status: 'stopping', detail: 'Stopping' });
  }

  private async loop(history: StepView[]): Promise<RunOutcome> {
    const { store, agent, limits } = this.deps;
    let consecutiveErrors = 0;
    for (let stepNumber = 1; stepNumber <= limits.maxStepsPerRound; stepNumber++) {
      if (this.abort.signal.aborted) return { status: 'stopped', result: 'Stopped by the user' };
      let step;
      try {
        step = await agent.step({
          request: this.request,
          history,
          signal: this.abort.signal,
          saveScreenshot: (image) =>
            this.deps.screenshots.save(this.sessionId, `step-${String(history.length).padStart(5, '0')}`, image),
          progress: (detail) =>
            this.deps.emit({
              kind: 'status.changed',
              sessionId: this.sessionId,
              status: 'running',
              detail: `Step ${stepNumber}: ${detail}`,
            }),
        });
      } catch (error) {
        if (error instanceof StepAborted) return { status: 'stopped', result: 'Stopped by the user' };
        throw error;
      }
      const view = store.appendStep(this.sessionId, step);
      history.push(view);
      this.deps.emit({ kind: 'step.added', step: view });

      switch (view.status) {
        case 'FINISH':
          return { status: 'finished', result: view.result ?? 'Done' };
        case 'FAIL':
          return { status: 'failed', result: view.result ?? 'The agent could not do it' };
        case 'PENDING':
          return { status: 'stopped', result: `The agent asked: ${view.result ?? '(no question given)'}` };
        case 'CONFIRM':
          return { status: 'stopped', result: `Held for approval: ${view.actionText}` };
        case 'ERROR':
          consecutiveErrors++;
          if (consecutiveErrors >= limits.maxConsecutiveErrors) {
            return { status: 'error', result: `${consecutiveErrors} failed steps in a row; last: ${view.error}` };
          }
          break;
        default:
          consecutiveErrors = 0;
      }
    }
    return { status: 'failed', result: `Reached the limit of ${limits.maxStepsPerRound} steps` };
  }

  private end(outcome: RunOutcome): RunOutcome {
    this.deps.store.setStatus(this.sessionId, outcome.status, outcome.result);
    this.deps.emit({ kind: 'session.ended', sessionId: this.sessionId, status: outcome.status, result: outcome.result });
    return outcome;
  }
}

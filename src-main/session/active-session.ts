import { HostAgent, ShellAgent } from '../agents/agents';
import { StepAborted, type BasicAgent } from '../agents/basic-agent';
import type { AgentRuntime, ModelWithPrices, StepMemory, SubtaskRecord } from '../agents/runtime';
import type { CommandGate } from '../commands/command-gate';
import type { Dispatcher } from '../commands/dispatcher';
import { DeviceStartError } from '../commands/device-connection';
import { oneLineHead } from '../common/text-head';
import { unlessAborted } from '../common/unless-aborted';
import type { DeskhandConfig } from '../host/config';
import type { Blackboard } from '../memory/blackboard';
import type { BlackboardStore } from '../memory/blackboard-store';
import { isDiskFull } from '../common/storage-errors';
import type { DataDiskSpace } from '../memory/disk-space';
import type { InteractionStore } from '../memory/interaction-store';
import type { ScreenshotFiles } from '../memory/screenshot-files';
import type { NewStep, SessionStore } from '../memory/session-store';
import type { PromptLibrary } from '../prompter/prompt-library';
import type { DocsRetriever } from '../prompter/retrieved-docs';
import type { HostEvent, PauseCause, SessionStatus, SessionView, StepView } from '../protocol';
import { storageFailure } from './failure-message';
import { SessionForms } from './form-service';
import type { InteractionBroker } from './interaction-broker';
import { PauseGate } from './pause-gate';
import { logError } from '../common/log';

export interface RunOutcome {
  status: SessionStatus;
  result: string | null;
}

/** What every session of a host shares. */
export interface SessionDeps {
  store: SessionStore;
  blackboards: BlackboardStore;
  interactions: InteractionStore;
  screenshots: ScreenshotFiles;
  /** The free space where the database and the screenshots are written. */
  disk: DataDiskSpace;
  gate: CommandGate;
  dispatcher: Dispatcher;
  broker: InteractionBroker;
  prompts: PromptLibrary;
  docs: DocsRetriever;
  config: DeskhandConfig;
  /** The model clients; throws a message for the user when no model is configured. */
  models(): { host: ModelWithPrices; app: ModelWithPrices };
  /** The tools on offer; `screenless` says why the device has no screen tools (no display), else null. */
  tools(): Promise<{ names: ReadonlySet<string>; docs: string; screenless: string | null }>;
  /** Removes known secrets from a value before it is stored or shown. */
  scrub<T>(value: T): T;
  /** A value the user typed into a password field: from now on it is removed from what is stored or shown. */
  rememberSecret?(value: string): void;
  emit(event: HostEvent): void;
}

const STOPPED: RunOutcome = { status: 'stopped', result: 'Stopped by you' };

/** Characters of the last finished sub-task (and of its result) a round ended at a step limit repeats. */
const LIMIT_SUBTASK_CHARS = 150;
const LIMIT_RESULT_CHARS = 300;

/**
 * A round ended at a step limit: why, and what the last finished sub-task achieved (its result, on one
 * line, shortened), so that the user sees what was done before the limit.
 */
function atStepLimit(reason: string, subtasks: readonly SubtaskRecord[]): RunOutcome {
  const done = subtasks.findLast((record) => record.status === 'FINISH' && record.result.trim());
  if (!done) return { status: 'failed', result: reason };
  const what = done.subtask.trim() ? ` (${oneLineHead(done.subtask, LIMIT_SUBTASK_CHARS)})` : '';
  return { status: 'failed', result: `${reason}. The last finished sub-task${what}: ${oneLineHead(done.result, LIMIT_RESULT_CHARS)}` };
}

/**
 * A session the host is working on: its blackboard, its agents, and the round in progress. It lives for
 * one round: the next one builds it again from the store (the root agent gets its own earlier steps back;
 * the AppAgents start afresh, their steps being on the blackboard's trajectory).
 */
export class ActiveSession {
  readonly pause = new PauseGate();
  readonly blackboard: Blackboard;
  readonly forms: SessionForms;
  private readonly root: BasicAgent;
  private abort: AbortController | null = null;
  private nextIndex: number;
  /** The status the run is in while the store could not take it (a full disk), until one is saved again. */
  private unsavedStatus: SessionStatus | null = null;
  /** Why the run is paused, while it is: what the last 'paused' status said (null while it is not). */
  private paused: { detail: string; cause: PauseCause } | null = null;
  private current: Promise<RunOutcome> | null = null;

  constructor(
    private readonly deps: SessionDeps,
    session: SessionView,
  ) {
    this.blackboard = deps.blackboards.load(session.id, deps.config.prompt.carriedQuestions);
    this.forms = new SessionForms(session.id, deps.interactions, deps.emit, deps.rememberSecret);
    this.root = session.mode === 'shell' ? new ShellAgent(null) : new HostAgent();
    for (const step of deps.store.stepsOf(session.id, this.root.name)) this.root.history.push(step);
    this.nextIndex = session.stepCount;
    this.sessionId = session.id;
  }

  readonly sessionId: string;

  get running(): Promise<RunOutcome> | null {
    return this.current;
  }

  /**
   * Starts a round; the promise settles when it ends (it never rejects). `resumed`: it takes up a request
   * that a crash cut off.
   */
  startRound(request: string, models: { host: ModelWithPrices; app: ModelWithPrices }, options: { resumed?: boolean } = {}): Promise<RunOutcome> {
    if (this.current) throw new Error('a round is already running in this session');
    const abort = new AbortController();
    this.abort = abort;
    // Together: a round saved without its session marked running shows after the next start as an
    // interrupted round of a session that says it finished, and cannot be resumed.
    const round = this.deps.store.transaction(() => {
      const index = this.deps.store.startRound(this.sessionId, request);
      this.deps.store.setStatus(this.sessionId, 'running', null);
      return index;
    });
    this.deps.emit({ kind: 'status.changed', sessionId: this.sessionId, status: 'running', detail: `Round ${round + 1} started` });
    this.current = this.runRound(round, request, abort.signal, models, options.resumed ?? false)
      .catch((error: unknown): RunOutcome => {
        if (error instanceof StepAborted || abort.signal.aborted) return STOPPED;
        if (error instanceof DeviceStartError) {
          logError(`[deskhand] ${error.message}`);
          return { status: 'error', result: error.message };
        }
        logError('[deskhand] the round failed:', error);
        const storage = storageFailure(error, this.deps.disk, { what: 'the round could not go on', then: 'continue the session' });
        return { status: 'error', result: storage ?? `internal error: ${(error as Error).message}` };
      })
      .then((outcome) => this.endRound(round, outcome))
      .finally(() => {
        this.current = null;
        this.abort = null;
      });
    return this.current;
  }

  stop(): boolean {
    if (!this.abort || this.abort.signal.aborted) return false;
    this.abort.abort();
    this.pause.resume();
    this.deps.emit({ kind: 'status.changed', sessionId: this.sessionId, status: 'stopping', detail: 'Stopping' });
    return true;
  }

  pauseRun(reason: string, cause: PauseCause): boolean {
    // Once Stop came (from another window, say) the run says it is stopping until it ends: a pause would
    // show it paused, and a Resume then running, while it winds down.
    if (!this.current || this.abort?.signal.aborted || !this.pause.pause(reason)) return false;
    this.setStatus('paused', reason, cause);
    return true;
  }

  resumeRun(): boolean {
    if (!this.pause.paused) return false;
    // Still short of space: it stays paused, saying how much is free now, rather than going on for a
    // moment and pausing again (which would also close and reopen the desktop notification).
    const shortage = this.paused?.cause === 'disk' ? this.diskShortage() : null;
    if (shortage) {
      this.setStatus('paused', shortage, 'disk');
      return true;
    }
    this.pause.resume();
    // Paused while it waited for the user's answer, approval or form: it still does.
    if (this.deps.interactions.open(this.sessionId).length > 0 || this.forms.awaited) this.setStatus('waiting', 'Resumed: waiting for you');
    else this.setStatus('running', 'Resumed');
    return true;
  }

  /** Why the run should wait for disk space now; the limit as Settings has it now, lowering it being a way out. */
  private diskShortage(): string | null {
    return this.deps.disk.shortage(this.deps.config.limits.minFreeDiskMb);
  }

  /** The session as it stands: with the status its run is in, when a full disk kept that from the store. */
  asItStands(session: SessionView): SessionView {
    return this.unsavedStatus ? { ...session, status: this.unsavedStatus } : session;
  }

  /** Why the run is paused, for a window that opens the session meanwhile; null while it is not. */
  get pausedFor(): { detail: string; cause: PauseCause } | null {
    return this.paused;
  }

  private setStatus(status: SessionStatus, detail: string, pause?: PauseCause): void {
    if (status !== 'paused') this.paused = null;
    else if (pause) this.paused = { detail, cause: pause };
    try {
      this.deps.store.setStatus(this.sessionId, status, null);
      this.unsavedStatus = null;
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      // Said all the same: the row keeps the status before, and a session cut off while it does shows
      // as interrupted at the next start, as a running one would.
      logError(`[deskhand] the session's status (${status}) could not be saved: ${(error as Error).message}`);
      this.unsavedStatus = status;
    }
    this.deps.emit({ kind: 'status.changed', sessionId: this.sessionId, status, detail, ...(pause ? { pause } : {}) });
  }

  private endRound(round: number, outcome: RunOutcome): RunOutcome {
    // A Pause pressed during the last step must not hold the next round, which nothing would resume.
    this.pause.resume();
    let session: SessionView | null = null;
    try {
      // All or nothing: a round saved as ended in a session still 'running' would be resumed, and run again.
      session = this.deps.store.transaction(() => {
        this.deps.interactions.cancelOpen(this.sessionId);
        this.forms.closeAll();
        this.deps.store.endRound(this.sessionId, round, outcome.status, outcome.result);
        return this.deps.store.setStatus(this.sessionId, outcome.status, outcome.result);
      });
    } catch (error) {
      // Nothing of the end was saved: the next start finds the round unfinished, and offers Resume. The
      // UI is told that, not the outcome the database does not hold.
      logError('[deskhand] the end of the round could not be saved:', error);
      const unsaved: RunOutcome = {
        status: 'error',
        // The outcome's reason stays: often it is the same failure, with what to do about it.
        result: `the round ended (${outcome.status}${outcome.result ? `: ${outcome.result}` : ''}) but that could not be saved: ${(error as Error).message}; it shows as interrupted at the next start`,
      };
      this.deps.emit({ kind: 'session.ended', sessionId: this.sessionId, status: unsaved.status, result: unsaved.result });
      return unsaved;
    }
    if (session) this.deps.emit({ kind: 'session.updated', session });
    this.deps.emit({ kind: 'session.ended', sessionId: this.sessionId, status: outcome.status, result: outcome.result });
    return outcome;
  }

  private async runRound(
    round: number,
    request: string,
    signal: AbortSignal,
    models: { host: ModelWithPrices; app: ModelWithPrices },
    resumed: boolean,
  ): Promise<RunOutcome> {
    const { config } = this.deps;
    const firstIndex = resumed ? this.firstStepOfInterruptedRequest(round) : this.nextIndex;
    // On the blackboard at once, so that a crash or a Stop while the device client starts keeps it. A
    // resumed request is there already (scrubbed, as written), unless the crash came that early.
    if (!resumed || this.blackboard.requests.all().at(-1)?.get('request') !== this.deps.scrub(request)) this.blackboard.addRequest(request);
    // Starting the device client can take seconds: Stop must not wait for it.
    const tools = await unlessAborted(this.deps.tools(), signal, () => new StepAborted());
    // The HostAgent sees and picks windows: without a screen it could only fail step after step.
    if (this.root instanceof HostAgent && tools.screenless) {
      return { status: 'error', result: `Desktop mode needs a screen, and there is none: ${tools.screenless}. Shell mode works without one.` };
    }
    const runtime = this.runtime(round, request, signal, models, tools);
    // The user has just used the mouse to ask (or resume): where the last round left the pointer, or a
    // takeover it caught, says nothing about this one. The reference starts again with its first action.
    this.deps.dispatcher.takeover.resume();
    let agent = this.root;
    if (agent instanceof ShellAgent) agent.assign(request);
    agent.beginRound();
    // What a resumed request needs is the word that it was cut off.
    if (resumed) await agent.noteInterruption(runtime);
    let state = agent.states.get('CONTINUE');
    try {
      for (;;) {
        if (signal.aborted) return STOPPED;
        // The pointer calls swallow an abort (they answer null): Stop is checked after each of them.
        const takeover = await this.deps.dispatcher.checkTakeover(signal);
        if (signal.aborted) return STOPPED;
        if (takeover.takenOver && !this.pause.paused) this.pauseRun(takeover.message, 'takeover');
        if (this.pause.paused) {
          await this.pause.wait(signal);
          if (signal.aborted) return STOPPED;
          await this.deps.dispatcher.rebasePointer(signal);
          if (signal.aborted) return STOPPED;
          agent.userInteracted();
        }
        // Before the step, not after its action: a step that acted and then could not be saved is a record lost.
        const shortage = this.diskShortage();
        if (shortage && this.pauseRun(shortage, 'disk')) continue;
        const overRound = this.nextIndex - firstIndex >= config.limits.maxStepsPerRound;
        if (overRound || this.nextIndex >= config.limits.maxStepsPerSession) {
          // A delegate that finished at the last step is not back with the host yet: its sub-task counts.
          const ended = state.isSubtaskEnd() && agent !== this.root ? [...runtime.subtasks, this.subtaskRecord(agent)] : runtime.subtasks;
          const limit = overRound ? `${config.limits.maxStepsPerRound} steps for one request` : `${config.limits.maxStepsPerSession} steps for one session`;
          return atStepLimit(`Reached the limit of ${limit}`, ended);
        }
        await state.handle(agent, runtime);
        const next = state.nextAgent(agent);
        if (next !== agent) {
          if (state.isSubtaskEnd()) runtime.subtasks.push(this.subtaskRecord(agent));
          next.status = 'CONTINUE';
          state = next.states.get('CONTINUE');
          agent = next;
        } else {
          state = state.nextState(agent);
        }
        if (state.isRoundEnd()) return this.outcomeOf(agent);
      }
    } finally {
      // An action still waiting for a decision nobody was asked for (Stop, a step limit) never runs.
      agent.abandonHeld(runtime, 'not run: the round ended before it was decided');
    }
  }

  /**
   * Where the steps of a resumed request began: in the round(s) a crash cut off, so that resuming does
   * not hand the request a fresh step budget.
   */
  private firstStepOfInterruptedRequest(round: number): number {
    const status = new Map(this.deps.store.rounds(this.sessionId).map((row) => [row.idx, row.status]));
    let first = round;
    while (first > 0 && status.get(first - 1) === 'interrupted') first--;
    return this.deps.store.firstStepIndexFrom(this.sessionId, first) ?? this.nextIndex;
  }

  private subtaskRecord(agent: BasicAgent): SubtaskRecord {
    const last = agent.history.at(-1);
    return {
      subtask: agent.subtask ?? '',
      agent: agent.name,
      target: agent.target,
      status: agent.status,
      result: agent.lastComment || last?.result || last?.error || '',
    };
  }

  private outcomeOf(agent: BasicAgent): RunOutcome {
    const last = agent.history.at(-1);
    switch (agent.status) {
      case 'FINISH':
        return { status: 'finished', result: agent.lastComment || last?.result || 'Done' };
      case 'FAIL':
        return { status: 'failed', result: agent.lastComment || last?.result || 'The agent could not do it' };
      default: {
        const error = last?.error ?? 'unknown';
        const { maxConsecutiveErrors } = this.deps.config.limits;
        // A failure no later step could mend (an unknown model) ends the round at its first step.
        if (agent.errorsInARow < maxConsecutiveErrors) return { status: 'error', result: error };
        return { status: 'error', result: `${maxConsecutiveErrors} failed steps in a row; last: ${error}` };
      }
    }
  }

  private runtime(
    round: number,
    request: string,
    signal: AbortSignal,
    models: { host: ModelWithPrices; app: ModelWithPrices },
    tools: { names: ReadonlySet<string>; docs: string },
  ): AgentRuntime {
    const { deps, sessionId } = this;
    const subtasks: SubtaskRecord[] = [];
    return {
      sessionId,
      round,
      request,
      blackboard: this.blackboard,
      signal,
      config: deps.config,
      gate: deps.gate,
      dispatcher: deps.dispatcher,
      broker: deps.broker,
      forms: this.forms,
      prompts: deps.prompts,
      docs: deps.docs,
      models,
      subtasks,
      tools,
      writeScreenshot: (image, name) => deps.screenshots.write(sessionId, name, image),
      commitStep: (step, memory) => this.commit(step, memory, signal),
      saveAnswers: (write) => this.saveAnswers(write, signal),
      countUsage: (tokens, costUsd) => this.countUsage(tokens, costUsd),
      nextStepIndex: () => this.nextIndex,
      // A step under way when Pause was pressed still reports its progress, but the session stays paused.
      // Once Stop came it reports none: the run says it is stopping until it ends, and an action it names
      // would not run (the gate refuses on the aborted signal).
      progress: (detail) => {
        if (signal.aborted) return;
        deps.emit({
          kind: 'status.changed',
          sessionId,
          ...(this.pause.paused ? { status: 'paused', pause: this.paused?.cause ?? 'user' } : { status: 'running' }),
          detail: `Step ${this.nextIndex + 1}: ${detail}`,
        });
      },
      // Stopped (answers saved once Stop came, say): the run says it is stopping until it ends.
      setStatus: (status, detail) => {
        if (!this.pause.paused && !signal.aborted) this.setStatus(status, detail);
      },
      untilResumed: () => this.pause.wait(signal),
      isPaused: () => this.pause.paused,
    };
  }

  /** Saves a step; on a full disk it waits for room (see saveWhenRoom): its action may have run. */
  private commit(step: NewStep, memory: StepMemory, signal: AbortSignal): Promise<StepView> {
    const what = `step ${this.nextIndex + 1}`;
    return this.saveWhenRoom(() => this.commitNow(step, memory), { what, it: 'it' }, signal);
  }

  /** Usage no step records; on a full disk it is lost with a line in the log, and the run still stops as asked. */
  private countUsage(tokens: { prompt: number; completion: number }, costUsd: number | null): void {
    try {
      this.deps.store.addUsage(this.sessionId, tokens, costUsd);
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      logError(`[deskhand] the tokens of a stopped step (${tokens.prompt} + ${tokens.completion}) could not be saved: ${(error as Error).message}`);
      return;
    }
    const session = this.deps.store.requireSession(this.sessionId);
    this.deps.emit({ kind: 'session.updated', session: this.asItStands(session) });
  }

  /** The user's answers, in one transaction with their blackboard records; on a full disk it waits for room. */
  private saveAnswers(write: () => void, signal: AbortSignal): Promise<void> {
    const save = (): void => this.blackboard.afterCommit(() => this.deps.store.transaction(write));
    return this.saveWhenRoom(save, { what: 'your answers', it: 'them' }, signal);
  }

  /**
   * Runs `save`. A disk too full to take it pauses the run, and Resume tries again: what it saves (a
   * step whose action may have run, answers the user gave) is kept in memory meanwhile. Stop tries once
   * more (the space may have been freed), and only then ends the round without it.
   */
  private async saveWhenRoom<T>(save: () => T, words: { what: string; it: string }, signal: AbortSignal): Promise<T> {
    for (;;) {
      try {
        return save();
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        logError(`[deskhand] ${words.what} could not be saved: ${(error as Error).message}`);
        // Stopped: nobody is to Resume, and the run says it is stopping, not paused.
        if (signal.aborted) throw new StepAborted();
        const why = this.deps.disk.fullMessage(
          error,
          `${words.what} could not be saved. Free some space, then Resume to save ${words.it} (Stop ends the round, without ${words.it} if there is still no room)`,
        );
        // Paused by the user meanwhile: the reason they see becomes this one.
        if (!this.pauseRun(why, 'disk')) this.setStatus('paused', why, 'disk');
        await this.pause.wait(signal);
      }
    }
  }

  /**
   * One transaction: the step, the session's counters and the step's blackboard records, all without
   * secrets (the store and the blackboard scrub what they write).
   */
  private commitNow(step: NewStep, memory: StepMemory): StepView {
    const view = this.blackboard.afterCommit(() =>
      this.deps.store.appendStep(this.sessionId, step, (index) => {
        if (memory.trajectory) this.blackboard.addTrajectory({ ...memory.trajectory, Step: index + 1 }, index);
        if (memory.savedScreenshot && step.screenshot) {
          const { file, width, height } = step.screenshot;
          this.blackboard.addImage({ sessionId: this.sessionId, file, width, height }, memory.savedScreenshot, index);
        }
      }),
    );
    this.nextIndex = view.index + 1;
    this.deps.emit({ kind: 'step.added', step: view });
    const session = this.deps.store.requireSession(this.sessionId);
    this.deps.emit({ kind: 'session.updated', session: this.asItStands(session) });
    return view;
  }
}

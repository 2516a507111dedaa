/**
 * Follows the host's events to know what the shell needs: which sessions are active (for Stop), whether
 * the agent is acting right now (to keep the window out of its screenshots), and what to show in the
 * tray. Pure: fed HostEvents, no Electron.
 */
import { oneLineHead } from '../common/text-head';
import { approvalNotice, TERMINAL_SESSION_STATUSES, type FormView, type HostEvent, type Interaction, type SessionStatus } from '../protocol';

export interface ActiveSession {
  id: string;
  title: string;
  status: SessionStatus;
  detail: string;
  stepCount: number;
}

export interface TrayStatus {
  /** One line for the tray tooltip and the status menu item. */
  label: string;
  /** Whether Stop has anything to stop. */
  canStop: boolean;
  state: 'idle' | 'acting' | 'waiting' | 'paused';
}

/**
 * Something that waits for the user: a question, an approval, an agent's form, or a run paused for
 * want of disk space (the one pause that comes while nobody may be watching).
 */
export type Waiting =
  | { kind: 'interaction'; interaction: Interaction }
  | { kind: 'form'; form: FormView }
  | { kind: 'disk'; sessionId: string };

/** Names one waiting thing across events (a notification is kept under it until it no longer waits). */
export function waitingKey(waiting: Waiting): string {
  switch (waiting.kind) {
    case 'interaction':
      return interactionKey(waiting.interaction.id);
    case 'form':
      return formKey(waiting.form.sessionId, waiting.form.formId);
    case 'disk':
      return diskKey(waiting.sessionId);
  }
}

function interactionKey(interactionId: string): string {
  return `interaction:${interactionId}`;
}

function formKey(sessionId: string, formId: string): string {
  return `form:${sessionId}:${formId}`;
}

function diskKey(sessionId: string): string {
  return `disk:${sessionId}`;
}

export interface TrackerChange {
  /** The agent started or stopped acting (status `running`). */
  actingChanged: boolean;
  /** What now waits for the user: a new question or approval, or a form that just opened. */
  needsUser: Waiting | null;
  /** Keys (`waitingKey`) of what no longer waits: decided, answered, closed, or its session is over. */
  settled: string[];
}

const MAX_TITLE = 48;

function shorten(text: string): string {
  return oneLineHead(text, MAX_TITLE);
}

export class RunTracker {
  private readonly sessions = new Map<string, ActiveSession>();
  private readonly pending = new Map<string, Interaction>();
  /** Open forms by formKey; an update of one already open (the user typing into it) is not news. */
  private readonly openForms = new Map<string, FormView>();
  /** Sessions whose run is paused for want of disk space (said once per pause). */
  private readonly diskPaused = new Set<string>();

  apply(event: HostEvent): TrackerChange {
    const wasActing = this.isActing();
    let needsUser: Waiting | null = null;
    const settled: string[] = [];
    switch (event.kind) {
      case 'session.started':
      case 'session.updated': {
        const { session } = event;
        if (TERMINAL_SESSION_STATUSES.has(session.status)) {
          settled.push(...this.forget(session.id));
        } else {
          const known = this.sessions.get(session.id);
          this.sessions.set(session.id, {
            id: session.id,
            title: session.title || session.request,
            status: session.status,
            detail: known?.status === session.status ? known.detail : '',
            stepCount: session.stepCount,
          });
        }
        break;
      }
      case 'status.changed': {
        if (TERMINAL_SESSION_STATUSES.has(event.status)) {
          settled.push(...this.forget(event.sessionId));
          break;
        }
        const known = this.sessions.get(event.sessionId);
        this.sessions.set(event.sessionId, {
          id: event.sessionId,
          title: known?.title ?? event.sessionId,
          status: event.status,
          detail: event.detail,
          stepCount: known?.stepCount ?? 0,
        });
        if (event.status === 'paused' && event.pause === 'disk') {
          if (!this.diskPaused.has(event.sessionId)) needsUser = { kind: 'disk', sessionId: event.sessionId };
          this.diskPaused.add(event.sessionId);
        } else if (this.diskPaused.delete(event.sessionId)) {
          settled.push(diskKey(event.sessionId));
        }
        break;
      }
      case 'session.ended':
      case 'session.deleted':
        settled.push(...this.forget(event.sessionId));
        break;
      case 'step.added': {
        const known = this.sessions.get(event.step.sessionId);
        if (known) known.stepCount = Math.max(known.stepCount, event.step.index + 1);
        break;
      }
      case 'interaction.requested':
        this.pending.set(event.interaction.id, event.interaction);
        needsUser = { kind: 'interaction', interaction: event.interaction };
        break;
      case 'interaction.resolved':
        if (this.pending.delete(event.interactionId)) settled.push(interactionKey(event.interactionId));
        break;
      case 'form.updated': {
        const { form } = event;
        const key = formKey(form.sessionId, form.formId);
        if (form.state === 'closed') {
          if (this.openForms.delete(key)) settled.push(key);
        } else {
          if (!this.openForms.has(key)) needsUser = { kind: 'form', form };
          this.openForms.set(key, form);
        }
        break;
      }
    }
    return { actingChanged: wasActing !== this.isActing(), needsUser, settled };
  }

  /** Sessions Stop should stop: every one not finished (normally one). */
  activeSessionIds(): string[] {
    return [...this.sessions.keys()];
  }

  /** The agent is working on the desktop (not waiting for the user, not paused). */
  isActing(): boolean {
    for (const session of this.sessions.values()) if (session.status === 'running') return true;
    return false;
  }

  pendingInteractions(): Interaction[] {
    return [...this.pending.values()];
  }

  status(): TrayStatus {
    const sessions = [...this.sessions.values()];
    if (sessions.length === 0) return { label: 'Deskhand: idle', canStop: false, state: 'idle' };
    const first = sessions.find((session) => session.status === 'running') ?? (sessions[0] as ActiveSession);
    const more = sessions.length > 1 ? ` (+${sessions.length - 1} more)` : '';
    const title = shorten(first.title);
    if (this.pending.size > 0 || first.status === 'waiting') {
      return { label: `Waiting for you: ${title}${more}`, canStop: true, state: 'waiting' };
    }
    if (first.status === 'paused') return { label: `Paused: ${title}${more}`, canStop: true, state: 'paused' };
    if (first.status === 'stopping') return { label: `Stopping: ${title}${more}`, canStop: true, state: 'acting' };
    const step = first.stepCount > 0 ? `, step ${first.stepCount}` : '';
    return { label: `Working: ${title}${step}${more}`, canStop: true, state: 'acting' };
  }

  /** Drops a session that is over; returns the keys of what waited in it. */
  private forget(sessionId: string): string[] {
    this.sessions.delete(sessionId);
    const settled: string[] = [];
    if (this.diskPaused.delete(sessionId)) settled.push(diskKey(sessionId));
    for (const [id, interaction] of this.pending) {
      if (interaction.sessionId !== sessionId) continue;
      this.pending.delete(id);
      settled.push(interactionKey(id));
    }
    for (const [key, form] of this.openForms) {
      if (form.sessionId !== sessionId) continue;
      this.openForms.delete(key);
      settled.push(key);
    }
    return settled;
  }
}

/**
 * The system notification for something that waits (the window is not focused). It says what kind of
 * decision waits and nothing of the action's arguments or the question's text: notifications show on
 * the lock screen and stay in the system's notification history.
 */
export function notificationFor(waiting: Waiting): { title: string; body: string } {
  if (waiting.kind === 'form') return { title: 'Deskhand waits for you', body: "The agent's form waits for you" };
  if (waiting.kind === 'disk') {
    return { title: 'Deskhand paused a run', body: "The disk that holds Deskhand's data is (nearly) full: free some space, then press Resume" };
  }
  const { interaction } = waiting;
  if (interaction.kind === 'questions') {
    const count = interaction.questions.length;
    return count === 1
      ? { title: 'Deskhand has a question', body: 'The agent asks you a question' }
      : { title: `Deskhand has ${count} questions`, body: `The agent asks you ${count} questions` };
  }
  return { title: 'Deskhand waits for your approval', body: approvalNotice(interaction.actions) };
}

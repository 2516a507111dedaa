/**
 * Follows the host's events to know what the shell needs: which sessions are active (for Stop), whether
 * the agent is acting right now (to keep the window out of its screenshots), and what to show in the
 * tray. Pure: fed HostEvents, no Electron.
 */
import { TERMINAL_SESSION_STATUSES, type HostEvent, type Interaction, type SessionStatus } from '../protocol';

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

export interface TrackerChange {
  /** The agent started or stopped acting (status `running`). */
  actingChanged: boolean;
  /** An interaction that now waits for the user (a question or an approval). */
  needsUser: Interaction | null;
}

const MAX_TITLE = 48;

function shorten(text: string, max = MAX_TITLE): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export class RunTracker {
  private readonly sessions = new Map<string, ActiveSession>();
  private readonly pending = new Map<string, Interaction>();

  apply(event: HostEvent): TrackerChange {
    const wasActing = this.isActing();
    let needsUser: Interaction | null = null;
    switch (event.kind) {
      case 'session.started':
      case 'session.updated': {
        const { session } = event;
        if (TERMINAL_SESSION_STATUSES.has(session.status)) {
          this.forget(session.id);
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
          this.forget(event.sessionId);
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
        break;
      }
      case 'session.ended':
      case 'session.deleted':
        this.forget(event.sessionId);
        break;
      case 'step.added': {
        const known = this.sessions.get(event.step.sessionId);
        if (known) known.stepCount = Math.max(known.stepCount, event.step.index + 1);
        break;
      }
      case 'interaction.requested':
        this.pending.set(event.interaction.id, event.interaction);
        needsUser = event.interaction;
        break;
      case 'interaction.resolved':
        this.pending.delete(event.interactionId);
        break;
      case 'form.updated':
        break;
    }
    return { actingChanged: wasActing !== this.isActing(), needsUser };
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

  private forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    for (const [id, interaction] of this.pending) if (interaction.sessionId === sessionId) this.pending.delete(id);
  }
}

/** The system notification for an interaction that waits (the window is not focused). */
export function notificationFor(interaction: Interaction): { title: string; body: string } {
  if (interaction.kind === 'questions') {
    const count = interaction.questions.length;
    return {
      title: count === 1 ? 'Deskhand has a question' : `Deskhand has ${count} questions`,
      body: shorten(interaction.questions[0] ?? '', 160),
    };
  }
  return {
    title: 'Deskhand waits for your approval',
    body: shorten(interaction.actionText.split('\n')[0] ?? '', 160),
  };
}

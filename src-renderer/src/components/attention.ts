const BASE_TITLE = 'Deskhand';

/**
 * The page title: how many questions and approvals wait for the user, in every session. `suffix` is what
 * the host put after the name in the page it served, kept in every title: browser mode's per-launch mark
 * (` · 1a2b3c4d`), by which the device client knows the browser window showing Deskhand and keeps off it.
 */
export function attentionTitle(waiting: number, suffix = ''): string {
  return waiting > 0 ? `(${waiting}) ${BASE_TITLE}${suffix}: waiting for you` : `${BASE_TITLE}${suffix}`;
}

/** What follows the name in the title the page was served with (see attentionTitle). */
export function servedTitleSuffix(servedTitle: string): string {
  return servedTitle.startsWith(BASE_TITLE) ? servedTitle.slice(BASE_TITLE.length) : '';
}

export interface Closable {
  close(): void;
}

/**
 * The system notifications raised for approvals, by interaction id. They ask for interaction (they
 * stay until clicked), so each is closed here once its approval is no longer pending: answered in
 * Deskhand, in another window, or moot because the session ended.
 */
export class ApprovalNotifications<T extends Closable = Closable> {
  private readonly shown = new Map<string, T>();
  private pending: ReadonlySet<string> = new Set();

  /** Whether the approval still waits (a notification shown after a permission prompt may be too late). */
  isPending(interactionId: string): boolean {
    return this.pending.has(interactionId);
  }

  add(interactionId: string, notification: T): void {
    this.shown.get(interactionId)?.close();
    this.shown.set(interactionId, notification);
  }

  /** Closes (and forgets) the notification of `interactionId`, if one is open. */
  close(interactionId: string): void {
    this.shown.get(interactionId)?.close();
    this.shown.delete(interactionId);
  }

  /** The ids that wait now; the notifications of any other are closed. */
  sync(pending: ReadonlySet<string>): void {
    this.pending = pending;
    for (const interactionId of [...this.shown.keys()]) {
      if (!pending.has(interactionId)) this.close(interactionId);
    }
  }
}

import { randomUUID } from 'node:crypto';
import type { AuditEntry } from '../commands/audit-store';
import { serverOf } from '../commands/command-gate';
import type { InteractionStore } from '../memory/interaction-store';
import type { SessionStore } from '../memory/session-store';

/** What a held action that a crash left undecided is audited as. */
export const NOT_RUN_AT_CRASH = 'not run: Deskhand stopped (closed or crashed) before it was approved or rejected';

/** What recovery writes to the audit (on the same database, so inside its transaction). */
export interface RecoveryAudit {
  record(entry: AuditEntry): void;
  markUnfinishedUnknown(): number;
}

/**
 * At start-up, what a crash or kill left behind: sessions and rounds still marked as running become
 * interrupted (resumable), their questions and approvals are cancelled, their agent forms closed,
 * every action that was waiting for approval is audited as never run, as it would have been had the
 * round ended normally, and a command that was running is marked as of unknown outcome. Returns the
 * interrupted sessions. One transaction: a crash during recovery leaves it all to the next start.
 */
export function recoverInterrupted(store: SessionStore, interactions: InteractionStore, audit: RecoveryAudit): string[] {
  return store.transaction(() => recover(store, interactions, audit));
}

function recover(store: SessionStore, interactions: InteractionStore, audit: RecoveryAudit): string[] {
  // A command under way when Deskhand stopped: its row was written before it ran, and stays.
  audit.markUnfinishedUnknown();
  const interrupted = store.markUnfinishedInterrupted();
  for (const sessionId of interrupted) {
    const now = Date.now();
    for (const held of interactions.open(sessionId)) {
      if (held.kind !== 'confirm') continue;
      for (const action of held.actions) {
        audit.record({
          callId: randomUUID(),
          sessionId,
          stepIdx: null,
          agent: held.agent,
          tool: action.function,
          toolType: 'action',
          server: serverOf(action.function),
          args: action.args,
          decision: 'rejected',
          approvedBy: null,
          reasons: held.reasons,
          status: 'skipped',
          result: null,
          error: NOT_RUN_AT_CRASH,
          requestedAt: now,
          durationMs: 0,
        });
      }
    }
    interactions.cancelOpen(sessionId);
    interactions.closeOpenForms(sessionId);
  }
  return interrupted;
}

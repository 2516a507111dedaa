import type { z } from 'zod';
import { logError } from '../common/log';
import { FormView, Interaction } from '../protocol';
import { keepAsIs, type Db, type Scrub } from './database';

export type InteractionOutcome = 'answered' | 'approved' | 'rejected' | 'cancelled';

interface InteractionRow {
  id: string;
  payload_json: string;
}

interface FormRow {
  form_id: string;
  spec_json: string;
}

/**
 * The rows whose JSON `schema` accepts; a damaged one (or one an older Deskhand wrote in a shape since
 * changed) is left out and logged, so that it cannot stop start-up recovery or the opening of its session.
 */
function readable<T>(schema: z.ZodType<T>, rows: Array<{ id: string; json: string }>, what: string): T[] {
  return rows.flatMap((row) => {
    let problem: string;
    try {
      const parsed = schema.safeParse(JSON.parse(row.json));
      if (parsed.success) return [parsed.data];
      problem = parsed.error.message;
    } catch (error) {
      problem = (error as Error).message;
    }
    logError(`[deskhand] the ${what} ${row.id} is damaged and left out: ${problem}`);
    return [];
  });
}

/** Questions and approvals waiting for the user, and agent forms; written before anyone is asked. */
export class InteractionStore {
  private readonly statements;

  constructor(
    db: Db,
    private readonly scrub: Scrub = keepAsIs,
  ) {
    this.statements = {
      insert: db.prepare('INSERT INTO interactions (id, session_id, kind, payload_json, created_at) VALUES (?, ?, ?, ?, ?)'),
      resolve: db.prepare(
        'UPDATE interactions SET resolved_at = ?, outcome = ?, response_json = ? WHERE id = ? AND resolved_at IS NULL',
      ),
      open: db.prepare('SELECT id, payload_json FROM interactions WHERE session_id = ? AND resolved_at IS NULL ORDER BY created_at'),
      cancelOpen: db.prepare(
        `UPDATE interactions SET resolved_at = ?, outcome = 'cancelled' WHERE session_id = ? AND resolved_at IS NULL RETURNING id`,
      ),
      upsertForm: db.prepare(
        `INSERT INTO forms (form_id, session_id, agent, spec_json, state, updated_at) VALUES (@formId, @sessionId, @agent, @spec, @state, @now)
         ON CONFLICT (session_id, form_id) DO UPDATE SET spec_json = @spec, state = @state, updated_at = @now`,
      ),
      closeOpenForms: db.prepare(`UPDATE forms SET state = 'closed', updated_at = ? WHERE session_id = ? AND state = 'open'`),
      forms: db.prepare('SELECT form_id, spec_json FROM forms WHERE session_id = ? ORDER BY updated_at'),
    };
  }

  save(interaction: Interaction): void {
    this.statements.insert.run(interaction.id, interaction.sessionId, interaction.kind, JSON.stringify(this.scrub(interaction)), Date.now());
  }

  /** Records the user's decision; false when it was already resolved (a double click, a second tab). */
  resolve(id: string, outcome: InteractionOutcome, response: unknown): boolean {
    return this.statements.resolve.run(Date.now(), outcome, JSON.stringify(this.scrub(response ?? null)), id).changes > 0;
  }

  open(sessionId: string): Interaction[] {
    const rows = this.statements.open.all(sessionId) as InteractionRow[];
    return readable(Interaction, rows.map((row) => ({ id: row.id, json: row.payload_json })), 'question or approval');
  }

  cancelOpen(sessionId: string): string[] {
    return (this.statements.cancelOpen.all(Date.now(), sessionId) as { id: string }[]).map((row) => row.id);
  }

  saveForm(form: FormView): void {
    this.statements.upsertForm.run({
      formId: form.formId,
      sessionId: form.sessionId,
      agent: form.agent,
      spec: JSON.stringify(this.scrub(form)),
      state: form.state,
      now: Date.now(),
    });
  }

  /** After a crash: the agents that had these forms open are gone. */
  closeOpenForms(sessionId: string): void {
    for (const form of this.forms(sessionId)) if (form.state === 'open') this.saveForm({ ...form, state: 'closed' });
    // A damaged form is not read back, but it is not left open either.
    this.statements.closeOpenForms.run(Date.now(), sessionId);
  }

  forms(sessionId: string): FormView[] {
    const rows = this.statements.forms.all(sessionId) as FormRow[];
    return readable(FormView, rows.map((row) => ({ id: row.form_id, json: row.spec_json })), 'form');
  }
}

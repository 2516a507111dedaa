import { z } from 'zod';
import { logError } from '../common/log';
import { ScreenshotRef } from '../protocol';
import { Blackboard, MEMORY_NAMES, type BlackboardSink, type MemoryName } from './blackboard';
import { keepAsIs, type Db, type Scrub } from './database';
import { MemoryItem } from './memory';

interface ItemRow {
  session_id: string;
  memory: MemoryName;
  step_idx: number | null;
  content_json: string;
}

const QuestionRecord = z.object({ question: z.string(), answer: z.string() });
const ScreenshotRecord = z.object({ screenshot: ScreenshotRef, reason: z.string() });
const AnyRecord = z.record(z.string(), z.unknown());

/** Each memory's records are checked when read back, so a damaged row is an error here, not in a prompt. */
const RECORD_SCHEMAS: Record<MemoryName, z.ZodType<Record<string, unknown>>> = {
  questions: QuestionRecord,
  requests: AnyRecord,
  trajectories: AnyRecord,
  screenshots: ScreenshotRecord,
};

/** The blackboard's persistence: one row per item, written inside the step's transaction. */
export class BlackboardStore {
  private readonly statements;

  constructor(
    db: Db,
    /** For what is written. */
    private readonly scrub: Scrub = keepAsIs,
    /** For the records the agents read (their prompts), which may hold what is never written (a typed password). */
    private readonly scrubForAgents: Scrub = scrub,
  ) {
    this.statements = {
      insert: db.prepare(
        'INSERT INTO blackboard_items (session_id, memory, step_idx, content_json, created_at) VALUES (?, ?, ?, ?, ?)',
      ),
      bySession: db.prepare('SELECT session_id, memory, step_idx, content_json FROM blackboard_items WHERE session_id = ? ORDER BY id'),
      lastQuestions: db.prepare(
        `SELECT session_id, memory, step_idx, content_json FROM blackboard_items WHERE memory = 'questions' AND session_id != ?
         ORDER BY id DESC LIMIT ?`,
      ),
    };
  }

  sinkFor(sessionId: string): BlackboardSink {
    return {
      write: (memory, item) => {
        this.statements.insert.run(sessionId, memory, item.step, JSON.stringify(this.scrub(item.toJSON())), Date.now());
      },
    };
  }

  /**
   * A session's blackboard as it was: its own items, plus the last `carriedQuestions` Q&A pairs of
   * earlier sessions (answers the user gave once need not be asked again), marked as carried: they are
   * for prompts, and never shown or exported as the session's own. With 0, only its own items.
   */
  load(sessionId: string, carriedQuestions: number): Blackboard {
    const blackboard = new Blackboard(this.sinkFor(sessionId), this.scrubForAgents);
    const carried = (this.statements.lastQuestions.all(sessionId, carriedQuestions) as ItemRow[]).reverse();
    blackboard.restore('questions', carried.flatMap((row) => this.carriedItem(row)));
    const rows = this.statements.bySession.all(sessionId) as ItemRow[];
    for (const name of MEMORY_NAMES) {
      blackboard.restore(name, rows.filter((row) => row.memory === name).map((row) => this.toItem(row, null)));
    }
    return blackboard;
  }

  /**
   * A Q&A pair of another session, or none when it is damaged: it only spares the user a question, and
   * one bad row of an old session must not stop every new session from starting.
   */
  private carriedItem(row: ItemRow): MemoryItem[] {
    try {
      return [this.toItem(row, row.session_id)];
    } catch (error) {
      logError(`[deskhand] a question of session ${row.session_id} is not carried over: ${(error as Error).message}`);
      return [];
    }
  }

  private toItem(row: ItemRow, carriedFrom: string | null): MemoryItem {
    const damaged = (why: string): Error => new Error(`a damaged ${row.memory} record on the blackboard of session ${row.session_id}: ${why}`);
    let content: unknown;
    try {
      content = JSON.parse(row.content_json);
    } catch (error) {
      throw damaged((error as Error).message);
    }
    const parsed = RECORD_SCHEMAS[row.memory].safeParse(content);
    if (!parsed.success) throw damaged(parsed.error.message);
    return new MemoryItem(parsed.data, row.step_idx, carriedFrom);
  }
}

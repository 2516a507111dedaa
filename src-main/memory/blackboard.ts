import type { ScreenshotRef } from '../protocol';
import { keepAsIs, type Scrub } from './database';
import { Memory, MemoryItem } from './memory';
import { headOf } from '../common/text-head';

export type MemoryName = 'questions' | 'requests' | 'trajectories' | 'screenshots';
export const MEMORY_NAMES: readonly MemoryName[] = ['questions', 'requests', 'trajectories', 'screenshots'];

/** Where blackboard writes go (SQLite in the app); called synchronously inside the step's transaction. */
export interface BlackboardSink {
  write(memory: MemoryName, item: MemoryItem): void;
}

export interface BlackboardPromptOptions {
  /** Characters the text may take; the oldest trajectory records go first when it is over. */
  budgetChars: number;
  /** Trajectory keys kept in the prompt (a setting). */
  historyKeys: readonly string[];
  /** Saved screenshots attached as images, newest first. */
  maxImages: number;
  /** Trajectory records to leave out, e.g. the asking agent's own steps (its history shows them already). */
  skipTrajectory?: (item: MemoryItem) => boolean;
}

export interface BlackboardPrompt {
  text: string;
  images: Array<{ screenshot: ScreenshotRef; reason: string }>;
  /** Trajectory records left out for the budget. */
  omitted: number;
}

/** The most of one answer a prompt shows, when the half of the budget kept for answers allows it. */
const MAX_ANSWER_CHARS = 2_000;
const MAX_QUESTION_CHARS = 300;
/** A Q&A line's characters besides its question and answer ("- Q: ", " A: ", "…"), with its section header's share. */
const QA_LINE_OVERHEAD = 40;
const QUESTIONS_HEADER = 'Questions and answers';
const NOTES_HEADER = "The user's notes with their decisions on held actions";
/** A note line's characters besides its action and note ("- rejected ", ": ", the line break), with its section header's share. */
const NOTE_LINE_OVERHEAD = NOTES_HEADER.length + 4 + '- rejected : '.length + 1;
/** The trajectory key of the note the user gave with a decision on a held action (with `Decision`). */
export const USER_NOTE = 'UserNote';
/** The most of one request a prompt shows, and the least an older one is shortened to before it is left out. */
const MAX_REQUEST_CHARS = 400;
const MIN_REQUEST_CHARS = 80;

/**
 * An agent's words (a question it asked, an action it took) in a line that also holds the user's: quoted,
 * so that an "A:" or ": " in them (text copied from the screen) cannot read as the user speaking.
 */
function quoted(value: unknown, max: number): string {
  return JSON.stringify(oneLine(value, max - 2));
}

function oneLine(value: unknown, max: number): string {
  const text = (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).replace(/\s+/g, ' ').trim();
  // Angle brackets would let recorded screen text pose as prompt markup.
  const safe = text.replace(/</g, '‹');
  return safe.length > max ? `${headOf(safe, max - 1)}…` : safe;
}

/** The trajectory key of the sub-task a step worked on: null for the HostAgent's own steps. */
const SUBTASK = 'Subtask';

/**
 * A trajectory record as a prompt shows it: the kept keys, without a sub-task the step did not have
 * (a `"Subtask":null` would only be noise; records stored so by earlier versions read the same).
 */
function promptRecord(item: MemoryItem, keys: readonly string[]): Record<string, unknown> {
  const picked = item.pick(keys);
  if (picked[SUBTASK] === null) delete picked[SUBTASK];
  return picked;
}

/**
 * The memory all agents of a session share (the seeds' Blackboard): questions and answers, requests,
 * step trajectories and screenshots an agent chose to keep.
 */
export class Blackboard {
  readonly questions = new Memory('questions');
  readonly requests = new Memory('requests');
  readonly trajectories = new Memory('trajectories');
  readonly screenshots = new Memory('screenshots');
  /** Records written inside afterCommit, kept once it has returned. */
  private staged: Array<{ name: MemoryName; item: MemoryItem }> | null = null;

  constructor(
    private readonly sink: BlackboardSink | null = null,
    /** Every record goes through it once, before it is kept or written: no secret in memory or on disk. */
    private readonly scrub: Scrub = keepAsIs,
  ) {}

  memory(name: MemoryName): Memory {
    return this[name];
  }

  /**
   * Adds a record to a memory: an item, a plain object, or a text (stored as { text }). `stored` is what
   * is written instead, when the record holds what must not be kept (a password the user typed).
   */
  addData(name: MemoryName, data: MemoryItem | Record<string, unknown> | string, step: number | null = null, stored?: Record<string, unknown>): MemoryItem {
    const values = data instanceof MemoryItem ? data.toJSON() : typeof data === 'string' ? { text: data } : data;
    const item = new MemoryItem(this.scrub(values), data instanceof MemoryItem ? data.step : step);
    // Written first: a record the store refused is not kept either.
    this.sink?.write(name, stored ? new MemoryItem(this.scrub(stored), item.step) : item);
    if (this.staged) this.staged.push({ name, item });
    else this.memory(name).add(item);
    return item;
  }

  /**
   * Runs `commit`, a store transaction that writes records through the sink; they are kept in the
   * memories only once it has returned, so a transaction rolled back leaves no record behind.
   */
  afterCommit<T>(commit: () => T): T {
    if (this.staged) throw new Error('afterCommit cannot be nested');
    const staged: Array<{ name: MemoryName; item: MemoryItem }> = [];
    this.staged = staged;
    try {
      const result = commit();
      for (const { name, item } of staged) this.memory(name).add(item);
      return result;
    } finally {
      this.staged = null;
    }
  }

  /** `storedAnswer`: the answer as it is written to disk, when the one the agents see must not be kept. */
  addQuestion(question: string, answer: string, step: number | null = null, storedAnswer?: string): MemoryItem {
    return this.addData('questions', { question, answer }, step, storedAnswer === undefined ? undefined : { question, answer: storedAnswer });
  }

  addRequest(request: string): MemoryItem {
    return this.addData('requests', { request });
  }

  addTrajectory(record: Record<string, unknown>, step: number): MemoryItem {
    return this.addData('trajectories', record, step);
  }

  addImage(screenshot: ScreenshotRef, metadata: { reason: string }, step: number | null = null): MemoryItem {
    return this.addData('screenshots', { screenshot, reason: metadata.reason }, step);
  }

  /** Loads items read back from storage without writing them again. */
  restore(name: MemoryName, items: readonly MemoryItem[]): void {
    for (const item of items) this.memory(name).add(item);
  }

  /** A session was deleted: what it said goes with it, from prompts too. */
  forgetCarriedFrom(sessionId: string): number {
    return this.questions.deleteWhere((item) => item.carriedFrom === sessionId);
  }

  isEmpty(): boolean {
    return MEMORY_NAMES.every((name) => this.memory(name).isEmpty());
  }

  clear(): void {
    for (const name of MEMORY_NAMES) this.memory(name).clear();
  }

  memoryJson(name: MemoryName): string {
    return JSON.stringify(this.memory(name).toJSON());
  }

  /**
   * The `[Blackboard:]` part of a prompt within a size budget, filled in order of what matters most:
   * the requests, the Q&A pairs and the user's notes with their decisions (what the user said), then the
   * newest trajectory records, then the saved screenshots, the newest of each that fit. The answers and
   * notes keep half the budget (as much of it as they need): long requests give way first, the oldest
   * shortened, then left out. The prompt at step
   * 200 is therefore no bigger than at step 20, however many questions were asked.
   */
  toPrompt(options: BlackboardPromptOptions): BlackboardPrompt {
    const room = { left: options.budgetChars - '[Blackboard:]\n'.length };
    // What the user said to the agents keeps a share of its own, however long the requests are.
    const answersShare = Math.floor(room.left / 2);
    const questionChars = Math.min(MAX_QUESTION_CHARS, Math.max(60, Math.floor(answersShare / 4)));
    // An answer (a form's data) may be text the agent types next: cut only where the budget demands.
    const answerChars = Math.max(60, Math.min(MAX_ANSWER_CHARS, answersShare - questionChars - QA_LINE_OVERHEAD));
    const questionItems = this.questions.lastK(20);
    const questionLine = (i: number): string =>
      `- Q: ${quoted(questionItems[i]?.get('question'), questionChars)} A: ${oneLine(questionItems[i]?.get('answer'), answerChars)}`;
    // The user's notes with their decisions on held actions are theirs to say too, whoever's step it was.
    // Its longer header and words leave a note a little less room than an answer, so that it fits in the share too.
    const noteChars = Math.max(60, Math.min(MAX_ANSWER_CHARS, answersShare - questionChars - NOTE_LINE_OVERHEAD));
    const noteItems = this.trajectories.all().filter((item) => typeof item.get(USER_NOTE) === 'string' && (item.get(USER_NOTE) as string).trim()).slice(-10);
    const noteLine = (i: number): string => {
      const item = noteItems[i] as MemoryItem;
      const decision = item.get('Decision') === 'rejected' ? 'rejected' : 'approved';
      return `- ${decision} ${quoted(item.get('Action'), questionChars)}: ${oneLine(item.get(USER_NOTE), noteChars)}`;
    };
    // The share is kept only as far as the answers and notes need it.
    const probe = { left: answersShare };
    newestThatFit(probe, QUESTIONS_HEADER, questionItems.length, questionLine);
    newestThatFit(probe, NOTES_HEADER, noteItems.length, noteLine);
    const reserved = answersShare - probe.left;
    const requestItems = this.requests.lastK(10);
    const firstRequest = this.requests.length - requestItems.length;
    const requestsRoom = { left: room.left - reserved };
    const requests = requestsThatFit(requestsRoom, requestItems.map((item) => item.get('request') ?? item.get('text')), firstRequest);
    room.left = requestsRoom.left + reserved;
    const questions = newestThatFit(room, QUESTIONS_HEADER, questionItems.length, questionLine);
    const notes = newestThatFit(room, NOTES_HEADER, noteItems.length, noteLine);
    const records = options.skipTrajectory ? this.trajectories.all().filter((item) => !options.skipTrajectory?.(item)) : this.trajectories.all();
    const trajectory = newestThatFit(room, 'Trajectory (NNNNN older records left out)', records.length, (i) =>
      `- ${oneLine(promptRecord(records[i] as MemoryItem, options.historyKeys), 500)}`,
    );
    const savedItems = this.screenshots.lastK(5);
    const saved = newestThatFit(room, 'Saved screenshots', savedItems.length, (i) => {
      const item = savedItems[i] as MemoryItem;
      return `- ${oneLine(item.get('reason'), 200)}${item.step === null ? '' : ` (step ${item.step + 1})`}`;
    });

    const sections: string[] = [];
    if (questions.length) sections.push(`Questions and answers:\n${questions.join('\n')}`);
    if (notes.length) sections.push(`${NOTES_HEADER}:\n${notes.join('\n')}`);
    if (requests.length) sections.push(`Requests so far:\n${requests.join('\n')}`);
    const omitted = records.length - trajectory.length;
    if (trajectory.length) sections.push(`Trajectory${omitted ? ` (${omitted} older records left out)` : ''}:\n${trajectory.join('\n')}`);
    if (saved.length) sections.push(`Saved screenshots:\n${saved.join('\n')}`);
    const images = this.screenshots
      .lastK(options.maxImages)
      .reverse()
      .map((item) => ({ screenshot: item.get('screenshot') as ScreenshotRef, reason: oneLine(item.get('reason'), 200) }));

    return { text: sections.length ? `[Blackboard:]\n${sections.join('\n\n')}` : '', images, omitted };
  }
}

/**
 * The requests (oldest first, the first numbered `first + 1`) within what is left of the budget: when
 * they do not fit whole, the oldest are shortened first (to MIN_REQUEST_CHARS), then left out, oldest
 * first; the newest is cut to the room only when it is alone and still does not fit.
 */
function requestsThatFit(room: { left: number }, requests: readonly unknown[], first: number): string[] {
  const overhead = 'Requests so far'.length + 4;
  const caps = requests.map(() => MAX_REQUEST_CHARS);
  let start = 0;
  const linesOf = (): string[] => requests.slice(start).map((request, i) => `${first + start + i + 1}. ${oneLine(request, caps[start + i] ?? MAX_REQUEST_CHARS)}`);
  const costOf = (lines: readonly string[]): number => (lines.length ? overhead + lines.reduce((sum, line) => sum + line.length + 1, 0) : 0);
  let lines = linesOf();
  while (lines.length && costOf(lines) > room.left) {
    const longer = caps.findIndex((cap, i) => i >= start && i < caps.length - 1 && cap > MIN_REQUEST_CHARS);
    if (longer >= 0) caps[longer] = MIN_REQUEST_CHARS;
    else if (start < requests.length - 1) start++;
    else {
      // The newest alone: it is cut to the room, or left out when not even a little of it fits.
      const fits = room.left - overhead - `${first + start + 1}. `.length - 1;
      if (fits < MIN_REQUEST_CHARS / 2) return [];
      caps[start] = Math.min(caps[start] ?? MAX_REQUEST_CHARS, fits);
      lines = linesOf();
      break;
    }
    lines = linesOf();
  }
  if (costOf(lines) > room.left) return [];
  room.left -= costOf(lines);
  return lines;
}

/**
 * The newest of `count` lines (made by `lineAt`, oldest first) that fit in what is left of the budget,
 * in their order; a section header and its separator count once, when a line is kept.
 */
function newestThatFit(room: { left: number }, header: string, count: number, lineAt: (index: number) => string): string[] {
  const kept: string[] = [];
  const overhead = header.length + 4;
  for (let i = count - 1; i >= 0; i--) {
    const line = lineAt(i);
    const cost = line.length + 1 + (kept.length ? 0 : overhead);
    if (cost > room.left) break;
    kept.unshift(line);
    room.left -= cost;
  }
  return kept;
}

import type { ScreenshotRef } from '../protocol';
import { Memory, MemoryItem } from './memory';

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

function oneLine(value: unknown, max: number): string {
  const text = (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).replace(/\s+/g, ' ').trim();
  // Angle brackets would let recorded screen text pose as prompt markup.
  const safe = text.replace(/</g, '‹');
  return safe.length > max ? `${safe.slice(0, max - 1)}…` : safe;
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

  constructor(private readonly sink: BlackboardSink | null = null) {}

  memory(name: MemoryName): Memory {
    return this[name];
  }

  /** Adds a record to a memory: an item, a plain object, or a text (stored as { text }). */
  addData(name: MemoryName, data: MemoryItem | Record<string, unknown> | string, step: number | null = null): MemoryItem {
    const item =
      data instanceof MemoryItem ? data : new MemoryItem(typeof data === 'string' ? { text: data } : data, step);
    this.memory(name).add(item);
    this.sink?.write(name, item);
    return item;
  }

  addQuestion(question: string, answer: string, step: number | null = null): MemoryItem {
    return this.addData('questions', { question, answer }, step);
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
   * The `[Blackboard:]` part of a prompt within a size budget: all Q&A pairs and requests (short, and
   * what the user said matters most), then the newest trajectory records that fit. The prompt at step
   * 200 is therefore no bigger than at step 20.
   */
  toPrompt(options: BlackboardPromptOptions): BlackboardPrompt {
    const sections: string[] = [];
    const questions = this.questions.lastK(20).map((item) => `- Q: ${oneLine(item.get('question'), 300)} A: ${oneLine(item.get('answer'), 300)}`);
    if (questions.length) sections.push(`Questions and answers:\n${questions.join('\n')}`);
    const requests = this.requests.lastK(10).map((item, index) => `${index + 1}. ${oneLine(item.get('request') ?? item.get('text'), 400)}`);
    if (requests.length) sections.push(`Requests so far:\n${requests.join('\n')}`);

    let used = sections.join('\n\n').length;
    const records = options.skipTrajectory ? this.trajectories.all().filter((item) => !options.skipTrajectory?.(item)) : this.trajectories.all();
    const kept: string[] = [];
    for (let i = records.length - 1; i >= 0; i--) {
      const line = `- ${oneLine((records[i] as MemoryItem).pick(options.historyKeys), 500)}`;
      if (used + line.length + 1 > options.budgetChars) break;
      kept.unshift(line);
      used += line.length + 1;
    }
    const omitted = records.length - kept.length;
    if (kept.length) {
      sections.push(`Trajectory${omitted ? ` (${omitted} older records left out)` : ''}:\n${kept.join('\n')}`);
    }

    const saved = this.screenshots.lastK(5).map((item) => `- ${oneLine(item.get('reason'), 200)}${item.step === null ? '' : ` (step ${item.step + 1})`}`);
    if (saved.length) sections.push(`Saved screenshots:\n${saved.join('\n')}`);
    const images = this.screenshots
      .lastK(options.maxImages)
      .reverse()
      .map((item) => ({ screenshot: item.get('screenshot') as ScreenshotRef, reason: oneLine(item.get('reason'), 200) }));

    return { text: sections.length ? `[Blackboard:]\n${sections.join('\n\n')}` : '', images, omitted };
  }
}

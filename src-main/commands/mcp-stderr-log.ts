import { headOf } from '../common/text-head';

/** What a stdio MCP server writes to stderr, made into log lines: each cut, and so many a minute at most. */

/** A stderr line longer than this is logged cut. */
export const MAX_LOG_LINE_CHARS = 1_000;
/** Lines of one server's stderr logged per minute at most; the rest are counted, not logged. */
export const MAX_LOG_LINES_PER_MINUTE = 100;

/** Splits a stream into lines (a line written in pieces is one), keeping at most MAX_LOG_LINE_CHARS of each. */
export class StderrLines {
  private pending = '';
  private cut = false;
  private readonly decoder = new TextDecoder();

  constructor(private readonly emit: (line: string) => void) {}

  write(chunk: Buffer): void {
    const parts = this.decoder.decode(chunk, { stream: true }).split('\n');
    const last = parts.pop() ?? '';
    for (const part of parts) {
      this.add(part);
      this.flush();
    }
    this.add(last);
  }

  end(): void {
    this.add(this.decoder.decode());
    this.flush();
  }

  private add(text: string): void {
    if (this.cut) return;
    this.pending += text;
    if (this.pending.length > MAX_LOG_LINE_CHARS) {
      this.pending = `${headOf(this.pending, MAX_LOG_LINE_CHARS)}… (cut)`;
      this.cut = true;
    }
  }

  private flush(): void {
    const line = this.pending.replace(/\r$/, '');
    this.pending = '';
    this.cut = false;
    if (line.trim()) this.emit(line);
  }
}

/** Passes on at most MAX_LOG_LINES_PER_MINUTE lines a minute, saying once when it starts dropping them. */
export class StderrLog {
  private windowStart = 0;
  private logged = 0;
  private dropped = 0;

  constructor(private readonly emit: (line: string) => void) {}

  line(line: string): void {
    const now = Date.now();
    if (now - this.windowStart >= 60_000) {
      if (this.dropped > 0) this.emit(`(${this.dropped} lines of its stderr were not logged)`);
      this.windowStart = now;
      this.logged = 0;
      this.dropped = 0;
    }
    if (this.logged < MAX_LOG_LINES_PER_MINUTE) {
      this.logged++;
      this.emit(line);
    } else if (this.dropped++ === 0) {
      this.emit(`(more lines of its stderr are not logged this minute: at most ${MAX_LOG_LINES_PER_MINUTE} a minute are)`);
    }
  }
}

import { format } from 'node:util';

/**
 * What the host core writes to its log: stderr, which the desktop app also copies to main.log. Each
 * host adds a scrubber for its keys and tokens while it runs, so an error that quotes one (an endpoint
 * echoing the key, a URL with a password) is logged with it replaced.
 */
const scrubbers = new Set<(text: string) => string>();

/** Adds a scrubber for log lines; the returned function removes it. */
export function scrubLogsWith(scrub: (text: string) => string): () => void {
  scrubbers.add(scrub);
  return () => {
    scrubbers.delete(scrub);
  };
}

/** `text` with every secret a running host knows replaced. */
export function scrubLogText(text: string): string {
  let line = text;
  for (const scrub of scrubbers) line = scrub(line);
  return line;
}

/** Logs one line (util.format of the parts, as console.error would) with every known secret replaced. */
export function logError(...parts: unknown[]): void {
  console.error(scrubLogText(format(...parts)));
}

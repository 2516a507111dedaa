import type { ScreenshotLease } from './types';

/** Loads one screenshot's bytes. */
export type LoadImage = (path: string, signal: AbortSignal) => Promise<Blob>;

/** `URL.createObjectURL` and `URL.revokeObjectURL`; tests count them. */
export interface ObjectUrls {
  create(blob: Blob): string;
  revoke(url: string): void;
}

interface Entry {
  users: number;
  readonly url: Promise<string>;
  readonly controller: AbortController;
  objectUrl: string | null;
}

/** Screenshots no component shows any more that stay loaded, for scrolling back or reopening a step. */
export const IDLE_KEPT = 64;

/**
 * Screenshots shown from blob: URLs, loaded once per image however many components show it. The most
 * recent IDLE_KEPT that nobody shows stay; older ones are revoked (or their loading aborted), which
 * frees their memory. A load that failed is tried again by the next lease.
 */
export class ScreenshotBlobs {
  /** In the order they were last leased, oldest first. */
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly load: LoadImage,
    private readonly urls: ObjectUrls,
    private readonly idleKept = IDLE_KEPT,
  ) {}

  lease(path: string): ScreenshotLease {
    const entry = this.entries.get(path) ?? this.start(path);
    this.entries.delete(path);
    this.entries.set(path, entry);
    entry.users += 1;
    let released = false;
    return {
      url: entry.url,
      release: () => {
        if (released) return;
        released = true;
        entry.users -= 1;
        this.trim();
      },
    };
  }

  private start(path: string): Entry {
    const controller = new AbortController();
    const url = this.load(path, controller.signal).then((blob) => {
      if (this.entries.get(path) !== entry) throw new Error('the screenshot is no longer shown');
      entry.objectUrl = this.urls.create(blob);
      return entry.objectUrl;
    });
    const entry: Entry = { users: 0, url, controller, objectUrl: null };
    url.catch(() => {
      if (this.entries.get(path) === entry) this.entries.delete(path);
    });
    return entry;
  }

  private trim(): void {
    const idle = [...this.entries].filter(([, entry]) => entry.users === 0);
    for (const [path, entry] of idle.slice(0, Math.max(0, idle.length - this.idleKept))) {
      this.entries.delete(path);
      entry.controller.abort();
      if (entry.objectUrl !== null) this.urls.revoke(entry.objectUrl);
    }
  }
}

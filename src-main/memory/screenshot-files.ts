import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { ScreenshotFileName } from '../protocol';
import type { StoredScreenshot } from './session-store';

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/png': 'png' };

/** Screenshots live as files under `<dataDir>/screenshots/<sessionId>/`; the database keeps the reference. */
export class ScreenshotFiles {
  readonly root: string;
  private readonly folders = new Map<string, Promise<void>>();

  constructor(dataDir: string) {
    this.root = resolve(dataDir, 'screenshots');
  }

  /**
   * Starts writing a screenshot and returns at once what the step records of it: `written` settles when
   * the file is on disk (the step is committed only after that), so the write overlaps whatever the
   * step does next.
   */
  write(
    sessionId: string,
    baseName: string,
    image: { bytes: Buffer; mimeType: string; width: number; height: number },
  ): { stored: StoredScreenshot; written: Promise<void> } {
    const extension = EXTENSIONS[image.mimeType];
    if (!extension) throw new Error(`unsupported screenshot type ${image.mimeType}`);
    const file = ScreenshotFileName.parse(`${baseName}.${extension}`);
    const folder = this.folderOf(sessionId);
    const written = this.folderReady(folder).then(() => writeFile(join(folder, file), image.bytes));
    const stored = {
      file,
      width: image.width,
      height: image.height,
      bytes: image.bytes.length,
      sha256: createHash('sha256').update(image.bytes).digest('hex'),
    };
    return { stored, written };
  }

  /** Forgets that a session's folder exists (it is being deleted): a write still under way then fails. */
  forget(sessionId: string): void {
    this.folders.delete(this.folderOf(sessionId));
  }

  /** Creates a session's folder once, until the session is deleted. */
  private folderReady(folder: string): Promise<void> {
    let ready = this.folders.get(folder);
    if (!ready) {
      ready = mkdir(folder, { recursive: true }).then(() => undefined);
      this.folders.set(folder, ready);
      ready.catch(() => this.folders.delete(folder));
    }
    return ready;
  }

  /**
   * The absolute path of a stored screenshot, or null when the name would leave the session's folder.
   * Every reader (HTTP, app://) goes through here.
   */
  pathOf(sessionId: string, file: string): string | null {
    if (!ScreenshotFileName.safeParse(file).success || !ScreenshotFileName.safeParse(sessionId).success) return null;
    const path = resolve(this.folderOf(sessionId), file);
    return path.startsWith(this.root + sep) ? path : null;
  }

  private folderOf(sessionId: string): string {
    return join(this.root, sessionId);
  }
}

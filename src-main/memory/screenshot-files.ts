import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { diskFullCode, fullDescription } from '../common/storage-errors';
import { ScreenshotFileName } from '../protocol';
import type { StoredScreenshot } from './session-store';

/** The folder names sessions get (randomUUID); no other folder under screenshots/ is ever removed. */
const SESSION_FOLDER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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
    const written = this.folderReady(folder)
      .then(() => writeFile(join(folder, file), image.bytes))
      .catch((error: unknown) => {
        const full = diskFullCode(error);
        throw full ? new Error(`the screenshot could not be saved in ${this.root}: the disk ${fullDescription(full)}`, { cause: error }) : error;
      });
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

  /**
   * Removes a deleted session's folder and every screenshot in it. An id that is not a plain name (a
   * damaged row's may be anything, "..") names no folder of ours: nothing is removed for it.
   */
  async removeFolder(sessionId: string): Promise<void> {
    if (!ScreenshotFileName.safeParse(sessionId).success) return;
    await rm(this.folderOf(sessionId), { recursive: true, force: true });
  }

  /**
   * At start-up: removes the folders of sessions that are gone (a crash or a failed removal after the
   * session's rows were deleted left them, and nothing else ever would). The folders are picked at
   * once, while `isSession` can still be asked; the removal runs on and settles with what it removed.
   */
  removeOrphanFolders(isSession: (id: string) => boolean): Promise<string[]> {
    let names: string[];
    try {
      names = readdirSync(this.root, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && SESSION_FOLDER.test(entry.name) && !isSession(entry.name))
        .map((entry) => entry.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Promise.resolve([]);
      return Promise.reject(error as Error);
    }
    return Promise.all(names.map((name) => rm(join(this.root, name), { recursive: true, force: true }).then(() => name)));
  }

  /**
   * How many step indexes a session's screenshots show taken (the highest `step-NNNNN` file's, plus
   * one); 0 when it has none. A session rebuilt from what was left of a damaged database continues after
   * them, so a new step's screenshot never overwrites one of a lost step.
   */
  stepsTaken(sessionId: string): number {
    if (!ScreenshotFileName.safeParse(sessionId).success) return 0;
    let names: string[];
    try {
      names = readdirSync(this.folderOf(sessionId));
    } catch {
      return 0;
    }
    let taken = 0;
    for (const name of names) {
      const index = /^step-(\d+)[.-]/.exec(name)?.[1];
      if (index !== undefined) taken = Math.max(taken, Number(index) + 1);
    }
    return taken;
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

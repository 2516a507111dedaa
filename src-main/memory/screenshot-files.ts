import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { ScreenshotFileName } from '../protocol';
import type { StoredScreenshot } from './session-store';

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/png': 'png' };

/** Screenshots live as files under `<dataDir>/screenshots/<sessionId>/`; the database keeps the reference. */
export class ScreenshotFiles {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = resolve(dataDir, 'screenshots');
  }

  async save(
    sessionId: string,
    baseName: string,
    image: { bytes: Buffer; mimeType: string; width: number; height: number },
  ): Promise<StoredScreenshot> {
    const extension = EXTENSIONS[image.mimeType];
    if (!extension) throw new Error(`unsupported screenshot type ${image.mimeType}`);
    const file = ScreenshotFileName.parse(`${baseName}.${extension}`);
    const folder = this.folderOf(sessionId);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, file), image.bytes);
    return {
      file,
      width: image.width,
      height: image.height,
      bytes: image.bytes.length,
      sha256: createHash('sha256').update(image.bytes).digest('hex'),
    };
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

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding Deskhand's package.json (the repository in development, app.asar when packaged). */
export function appRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find Deskhand package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

/** True when this code runs from the electron-vite bundle (out/main), false when run from source. */
export function runningFromBuild(): boolean {
  return fileURLToPath(import.meta.url).includes(`${sep}out${sep}main${sep}`);
}

/** The built renderer that browser mode serves. */
export function rendererDir(): string {
  return join(appRoot(), 'out', 'renderer');
}

export function promptsDir(): string {
  return join(appRoot(), 'prompts');
}

/**
 * `DESKHAND_DATA_DIR` wins (a contract); otherwise the folder Electron uses as the desktop app's
 * userData, so the desktop app, browser mode and the CLI share their sessions and settings.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DESKHAND_DATA_DIR) return env.DESKHAND_DATA_DIR;
  const home = homedir();
  switch (process.platform) {
    case 'win32':
      return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Deskhand');
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'Deskhand');
    default:
      return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'Deskhand');
  }
}

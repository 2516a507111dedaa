// The desktop app itself, through Playwright's Electron driver: start it, type a request, see a step in
// the trajectory, press Stop. Needs the Electron binary (downloaded on the first `npm start`) and
// better-sqlite3 built for it (`node build/electron-native.mjs`); without them the test is skipped and
// says why. Everything else the app does is tested in Node (tests/unit/electron-*.test.ts) and in
// browser mode (tests/e2e/*).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { electronAvailability, electronSqliteAvailability, launchDesktopApp, type DesktopApp } from '../support/electron-app';
import { startXvfb, type XDisplay } from '../support/xvfb';

const electron = electronAvailability();
const sqlite = electron.ok ? electronSqliteAvailability() : electron;
const skipReason = !electron.ok ? electron.reason : !sqlite.ok ? sqlite.reason : null;
if (skipReason) console.warn(`[electron-smoke] skipped: ${skipReason}`);

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

describe('desktop app (Electron)', () => {
  it.skipIf(skipReason !== null)(
    `starts, runs a request, shows a step and stops${skipReason ? ` (skipped: ${skipReason})` : ''}`,
    async () => {
      if (!electron.ok) return;
      const work = mkdtempSync(join(tmpdir(), 'deskhand-electron-'));
      cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
      const x: XDisplay = await startXvfb({ width: 1280, height: 800 });
      cleanups.push(() => x.stop());
      // One step (a harmless wait), then the model never answers: the run is busy until Stop.
      const model: ModelServer = await startModelServer({
        name: 'electron-smoke',
        steps: [
          {
            json: {
              Observation: 'A desktop.',
              Thought: 'Wait a moment before acting.',
              ControlLabel: '',
              ControlText: '',
              Function: 'wait',
              Args: { seconds: 0 },
              Status: 'CONTINUE',
              Plan: ['keep going'],
              Comment: '',
            },
          },
          { hang: true },
        ],
      });
      cleanups.push(() => model.close());

      const desktop: DesktopApp = await launchDesktopApp(electron.executable, {
        ...x.env,
        DESKHAND_DATA_DIR: join(work, 'data'),
        // Electron's userData (window state, logs, desktop settings) goes under here on Linux.
        XDG_CONFIG_HOME: join(work, 'config'),
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'scripted',
        DESKHAND_MODEL: 'scripted',
      });
      cleanups.push(() => desktop.close());
      const page = desktop.window;
      try {
        expect(page.url()).toBe('app://deskhand/index.html');
        await page.getByRole('textbox', { name: 'Request' }).fill('Wait a moment, then keep going');
        await page.getByRole('button', { name: 'Send' }).click();
        const trajectory = page.getByRole('list', { name: 'Trajectory' });
        await expect.poll(() => trajectory.getByRole('listitem').count(), { timeout: 30_000 }).toBeGreaterThan(0);
        const stop = page.getByRole('button', { name: 'Stop' });
        await expect.poll(() => stop.isEnabled(), { timeout: 10_000 }).toBe(true);
        await stop.click();
        await expect.poll(() => page.getByRole('status').textContent(), { timeout: 15_000 }).toMatch(/Stopped/);
        // The page got no Node or Electron: only the bridge.
        expect(await page.evaluate(() => [typeof (globalThis as { require?: unknown }).require, typeof (globalThis as { process?: unknown }).process, Object.keys((globalThis as unknown as { deskhand: object }).deskhand).sort()])).toEqual([
          'undefined',
          'undefined',
          ['desktop', 'invoke', 'onMessage'],
        ]);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n--- app log ---\n${desktop.log()}\n--- model ---\n${JSON.stringify(model.failures)}`);
      }
    },
    180_000,
  );
});

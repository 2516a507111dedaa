import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src-main/host/data-dir-lock';
import { spawnWebApp, startWebApp, type WebApp } from '../support/web-app';

/** What `npm run web` tells the user in its terminal as it starts (the built app, as npm runs it). */
describe('browser mode at start-up', () => {
  let app: WebApp | null = null;
  let dataDir = '';
  afterEach(async () => {
    await app?.stop();
    app = null;
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('says when the key the desktop app saved cannot be used here, and what to do', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'deskhand-web-keychain-'));
    // A key the desktop app encrypted with the system keychain: browser mode cannot read it.
    writeFileSync(join(dataDir, 'secrets.json'), JSON.stringify({ version: 1, secrets: { host: { ciphertext: 'AAAA', protected: true } } }));
    const env = { ...process.env, DESKHAND_DATA_DIR: dataDir, OPENAI_API_KEY: '', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', DISPLAY: '' };
    app = await startWebApp(env);
    await expect.poll(() => app?.log()).toMatch(
      /the API key saved in the desktop app's Settings \(host\) is encrypted with the system keychain, which only the desktop app can read: set OPENAI_API_KEY, or enter the key in Settings here/,
    );
    await app.stop();

    // With OPENAI_API_KEY there is nothing to say.
    app = await startWebApp({ ...env, OPENAI_API_KEY: 'from-the-environment' });
    await new Promise((done) => setTimeout(done, 300));
    expect(app.log()).not.toMatch(/encrypted with the system keychain/);
  });

  it('says why when its port is taken, and lets the data folder go', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'deskhand-web-port-'));
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const { port } = taken.address() as AddressInfo;
    try {
      const env = { ...process.env, DESKHAND_DATA_DIR: dataDir, DESKHAND_PORT: String(port), OPENAI_API_KEY: '', DISPLAY: '' };
      const refused = spawnWebApp(env);
      expect(await refused.exited).toBe(1);
      expect(refused.log()).toMatch(/Deskhand could not start: .*EADDRINUSE/);
      // The host was closed before the exit: its lock is gone, so the next start does not wait on it.
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    } finally {
      taken.close();
    }
  });
});

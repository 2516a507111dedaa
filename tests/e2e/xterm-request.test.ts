import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRequest, startDesktopE2e, type DesktopE2e } from '../support/desktop-e2e';
import { replies } from '../support/host-harness';

const reply = (fields: Record<string, unknown>) => replies.app({ Observation: 'An xterm fills the screen', ControlText: 'xterm', ...fields });
const host = (fields: Record<string, unknown>) => replies.host({ Observation: 'A terminal fills the desktop', ...fields });

let e2e: DesktopE2e;

beforeAll(async () => {
  e2e = await startDesktopE2e('deskhand-e2e-');
});

afterAll(() => e2e?.close());

async function waitForFile(path: string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8');
      if (text.trim()) return text;
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${path} was not written within ${timeoutMs} ms`);
}

describe('a request typed in the browser UI drives a real xterm', () => {
  it('types the command, the file appears, the trajectory shows the steps, and they survive a restart', async () => {
    const out = join(e2e.work, 'out.txt');
    const model = await e2e.useModel({
      name: 'xterm echo',
      steps: [
        {
          ...host({ Status: 'CONTINUE', 'Current Sub-Task': 'type the echo command in the terminal', ControlText: 'deskhand-xterm' }),
          expect: { contains: ['write deskhand-ok', 'deskhand-xterm'] },
        },
        { ...reply({ Function: 'click', Args: { x: 300, y: 300 }, Status: 'CONTINUE' }), expect: { contains: ['type the echo command'] } },
        reply({ Function: 'type_text', Args: { text: `echo deskhand-ok > ${out}\n` }, Status: 'CONTINUE' }),
        reply({ Function: '', Args: {}, Status: 'FINISH', Comment: 'The command ran' }),
        host({ Status: 'FINISH', Comment: 'The file is written' }),
      ],
    });
    const dataDir = join(e2e.work, 'data');
    let app = await e2e.startApp(model, dataDir);
    const page = await e2e.newPage();
    await page.goto(app.url);
    await sendRequest(page, 'write deskhand-ok into out.txt using the terminal');

    // A command line typed into a terminal runs: that step waits for approval, and nothing is typed before.
    const card = page.getByRole('region', { name: 'Approve this action?' });
    await card.getByText(/runs a command in a terminal/).waitFor({ timeout: 30_000 });
    expect(existsSync(out)).toBe(false);
    await card.getByRole('button', { name: 'Approve' }).click();

    const trajectory = page.getByRole('list', { name: 'Trajectory' });
    await expect.poll(() => trajectory.getByRole('listitem').count(), { timeout: 30_000 }).toBe(6);
    expect(await waitForFile(out)).toBe('deskhand-ok\n');
    await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: 10_000 }).toMatch(/^Finished/);

    // Every step shows its screenshot, and the images really load (the token in a header, shown from blob: URLs).
    const images = trajectory.getByRole('img');
    await expect.poll(() => images.count(), { timeout: 10_000 }).toBe(6);
    const widths: number[] = [];
    for (const image of await images.all()) {
      expect(await image.getAttribute('src')).toMatch(/^blob:/);
      await expect.poll(() => image.evaluate((node) => (node as unknown as { naturalWidth: number }).naturalWidth), { timeout: 10_000 }).toBeGreaterThan(0);
      widths.push(await image.evaluate((node) => (node as unknown as { naturalWidth: number }).naturalWidth));
    }
    // The host sees the whole desktop; the AppAgent's screenshots are of the xterm window.
    expect(widths[0]).toBe(1280);
    expect(model.requests).toHaveLength(5);
    expect(model.requests.every((request) => request.images === 1)).toBe(true);
    model.assertDone();
    await page.close();

    // Restart the host: the session and its steps are still there.
    await app.stop();
    app = await e2e.startApp(model, dataDir);
    const again = await e2e.newPage();
    await again.goto(app.url);
    await again.getByRole('link', { name: /write deskhand-ok/ }).click();
    const restored = again.getByRole('list', { name: 'Trajectory' });
    await expect.poll(() => restored.getByRole('listitem').count(), { timeout: 10_000 }).toBe(6);
    // The held step and the approved one.
    await expect.poll(() => restored.getByText(/Type 'echo deskhand-ok/).count()).toBe(2);
    await again.close();
  });

  it('shows a clear error for a reply that is not JSON and for an unknown tool, and acts on nothing', async () => {
    const sentinel = join(e2e.work, 'untouched.txt');
    const model = await e2e.useModel({
      name: 'bad replies',
      steps: [
        host({ Status: 'CONTINUE', 'Current Sub-Task': 'write the file', ControlText: 'deskhand-xterm' }),
        { content: 'I will now type the command for you.' },
        { content: 'Really, I will.' },
        reply({ Function: 'run_shell', Args: { command: `echo bad > ${sentinel}` }, Status: 'CONTINUE' }),
        reply({ Function: '', Args: {}, Status: 'FAIL', Comment: 'giving up' }),
        host({ Status: 'FAIL', Comment: 'could not do it' }),
      ],
    });
    const app = await e2e.startApp(model, join(e2e.work, 'data-bad'));
    const page = await e2e.newPage();
    await page.goto(app.url);
    await sendRequest(page, 'do something bad');
    const trajectory = page.getByRole('list', { name: 'Trajectory' });
    await expect.poll(() => trajectory.getByRole('listitem').count(), { timeout: 30_000 }).toBe(5);
    await expect.poll(() => trajectory.getByText(/not valid JSON/).count()).toBe(1);
    await expect.poll(() => trajectory.getByText(/unknown tool 'run_shell'/).count()).toBe(1);
    // Give a wrongly dispatched action time to land before checking it did not.
    await new Promise((done) => setTimeout(done, 500));
    expect(existsSync(sentinel)).toBe(false);
    await page.close();
  });
});

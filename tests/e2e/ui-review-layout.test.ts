import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { heldSendApproval, makeSession, makeStep, screenshotRef } from '../support/ui-fixtures';
import { framesAtOnce, saveScreenshot, uiPerTest } from '../support/ui-page';

// Each test opens the UI itself, at the window size it checks.
const fresh = uiPerTest({
  prepare(host) {
    host.addSession(makeSession('older', { title: 'Sort the photos', status: 'finished', createdAt: Date.now() - 60_000 }), [makeStep('older', 0)]);
  },
  open: false,
});

const COMMAND = `echo ${'a'.repeat(5_000)}`;
/** A window title with no spaces, as some programs make them. */
const TITLE = `Report_${'W'.repeat(200)}.txt`;

/** A running session with a step about a long, unbroken title, and a held 5,000-character command. */
async function busySession(page: Page): Promise<string> {
  const { host } = fresh;
  await page.getByRole('textbox', { name: 'Request' }).fill('clean up the build folder');
  await page.getByRole('textbox', { name: 'Request' }).press('Enter');
  await host.waitForCommand('session.start');
  const sessionId = [...host.sessions.keys()].at(-1) ?? '';
  host.addStep(makeStep(sessionId, 0, { target: TITLE, subtask: `Tidy ${TITLE}`, screenshot: screenshotRef(sessionId, 'step-1.png') }));
  host.requestInteraction({
    kind: 'confirm',
    id: 'c1',
    sessionId,
    agent: 'ShellAgent',
    actionText: Array.from({ length: 40 }, (_, i) => `Run 'step ${i + 1} of a long sequence'`).join('\n'),
    actions: [{ function: 'execute_command', args: { command: COMMAND } }],
    target: TITLE,
    reasons: ['rule: shell command'],
    screenshot: null,
  });
  await page.getByRole('region', { name: 'Approve this action?' }).waitFor();
  await expect.poll(() => page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').count()).toBe(1);
  return sessionId;
}

/** Elements whose content is wider than they are (text running out of its box). */
async function overflowing(page: Page, selector: string): Promise<string[]> {
  // A string: these tests are type-checked without the DOM library.
  return (await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})]
    .filter((element) => element.scrollWidth > element.clientWidth + 1)
    .map((element) => (element.className || element.tagName) + ': ' + element.scrollWidth + ' > ' + element.clientWidth)`)) as string[];
}

describe('layout at a small window and with long text (review)', () => {
  it('keeps the trajectory and the request box usable in an 800x600 window; the sessions open from a button', async () => {
    const { host } = fresh;
    const ui = await fresh.open({ width: 800, height: 600 });
    const { page } = ui;
    await busySession(page);
    await page.waitForTimeout(300);
    await saveScreenshot(page, 'review-narrow');
    const width = (name: string, role: 'list' | 'textbox') => page.getByRole(role, { name }).evaluate((element) => element.getBoundingClientRect().width);
    expect(await width('Trajectory', 'list')).toBeGreaterThanOrEqual(380);
    expect(await width('Request', 'textbox')).toBeGreaterThanOrEqual(300);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(800);

    // The sessions are one button away, by keyboard too; opening one closes the panel and shows it.
    const toggle = page.getByRole('button', { name: 'Sessions' });
    await toggle.focus();
    await page.keyboard.press('Enter');
    const older = page.getByRole('link', { name: /Sort the photos/ });
    await older.waitFor();
    await saveScreenshot(page, 'review-narrow-sessions');
    await older.focus();
    await page.keyboard.press('Enter');
    expect((await host.waitForCommand('session.open', (command) => command.sessionId === 'older')).sessionId).toBe('older');
    await expect.poll(() => page.getByRole('navigation', { name: 'Past sessions' }).count()).toBe(0);
    // Ctrl+K still searches: it brings the sessions back with the search focused, frames at once too (the
    // panel's opening is a store update from a key press, committed before any frame).
    const framesAsUsual = await framesAtOnce(page);
    await page.keyboard.press('Control+k');
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('deskhand-session-search');
    await framesAsUsual();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('navigation', { name: 'Past sessions' }).count()).toBe(0);
    expect(ui.problems).toEqual([]);
  });

  it('wraps a window title with no spaces instead of running out of the step and the approval card', async () => {
    const ui = await fresh.open({ width: 1440, height: 900 });
    const { page } = ui;
    await busySession(page);
    expect(await overflowing(page, '.trajectory-scroller, .step-card, .step-body, .step-groups')).toEqual([]);
    expect(await overflowing(page, 'aside[aria-label="Agent requests"], aside [data-waiting-card]')).toEqual([]);
  });

  it('keeps a long action summary in a bounded, scrollable box so Approve and Reject stay near', async () => {
    const ui = await fresh.open({ width: 1440, height: 900 });
    const { page } = ui;
    await busySession(page);
    const summary = page.getByTestId('confirm-action');
    expect(await summary.evaluate((element) => element.getBoundingClientRect().height)).toBeLessThanOrEqual(260);
    // Scrollable by keyboard, and named for what it is.
    expect(await summary.getAttribute('tabindex')).toBe('0');
    expect(await page.getByRole('region', { name: 'Approve this action?' }).getByRole('button', { name: 'Approve' }).isVisible()).toBe(true);
  });

  it('keeps the step detail’s Previous / Next buttons on screen, and the blackboard within its panel, for long unbroken text', async () => {
    const { host } = fresh;
    const ui = await fresh.open({ width: 800, height: 600 });
    const { page } = ui;
    const sessionId = await busySession(page);
    host.addStep(makeStep(sessionId, 1, { target: TITLE }));
    const rows = page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem');
    await expect.poll(() => rows.count()).toBe(2);
    await rows.first().click();
    const detail = page.getByRole('dialog', { name: /^Step 1/ });
    await detail.waitFor();
    await page.waitForTimeout(300);
    await saveScreenshot(page, 'review-narrow-detail');
    for (const name of ['Previous step', 'Next step', 'Close']) {
      const box = await detail.getByRole('button', { name }).boundingBox();
      expect(box, name).not.toBeNull();
      expect((box?.x ?? 0) + (box?.width ?? 0), name).toBeLessThanOrEqual(800);
    }
    expect(await overflowing(page, '#step-detail-title')).toEqual([]);
    await page.keyboard.press('Escape');
    await detail.waitFor({ state: 'detached' });

    host.sessions.get(sessionId)?.blackboard.questions.push({ question: `Which file? ${TITLE}`, answer: TITLE });
    await page.getByRole('button', { name: 'Blackboard' }).click();
    const blackboard = page.getByRole('dialog', { name: 'Blackboard' });
    await blackboard.getByRole('list', { name: 'Questions and answers' }).waitFor();
    expect(await overflowing(page, '.MuiDrawer-paper, .MuiDrawer-paper > *')).toEqual([]);
  });

  it('gives the step detail all of an 800x600 window: the screenshot fits whole, and the details scroll on below it by keyboard', async () => {
    const ui = await fresh.open({ width: 800, height: 600 });
    const { page } = ui;
    await busySession(page);
    await page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').first().click();
    const detail = page.getByRole('dialog', { name: /^Step 1/ });
    await detail.waitFor();
    const image = detail.getByRole('img', { name: /Screenshot of step 1/ });
    await image.waitFor();
    await page.waitForTimeout(300);
    await saveScreenshot(page, 'review-narrow-detail-full');
    const paper = await page.locator('.MuiDialog-paper').boundingBox();
    expect(paper).toEqual({ x: 0, y: 0, width: 800, height: 600 });
    // "Fit" shows all of the screenshot: none of it is cut off by its frame.
    const frame = await detail.getByRole('region', { name: /Screenshot of step 1, scrollable/ }).boundingBox();
    const shown = await image.boundingBox();
    expect(frame && shown).toBeTruthy();
    if (!frame || !shown) return;
    expect(shown.height).toBeGreaterThanOrEqual(240);
    expect(shown.y).toBeGreaterThanOrEqual(frame.y);
    expect(shown.y + shown.height).toBeLessThanOrEqual(frame.y + frame.height + 1);
    expect(shown.width / shown.height).toBeCloseTo(1280 / 800, 1);

    // The details are not a sliver of their own below it: one scroll, taken by the keyboard.
    const details = detail.getByRole('region', { name: 'Step details' });
    expect(await details.evaluate((element) => element.scrollHeight - element.clientHeight)).toBeLessThanOrEqual(1);
    const tokens = detail.getByText('Tokens', { exact: true });
    const inView = async () => {
      const box = await tokens.boundingBox();
      return box !== null && box.y >= 0 && box.y + box.height <= 600;
    };
    expect(await inView()).toBe(false);
    await page.locator('.MuiDialogContent-root').focus();
    await page.keyboard.press('End');
    await expect.poll(inView).toBe(true);
    expect(ui.problems).toEqual([]);
  });

  it('wraps a long unbroken session title in the "waiting for you" alert and a long error message', async () => {
    const { host } = fresh;
    const ui = await fresh.open({ width: 800, height: 600 });
    const { page } = ui;
    await page.getByRole('textbox', { name: 'Request' }).fill(TITLE);
    await page.getByRole('textbox', { name: 'Request' }).press('Enter');
    await host.waitForCommand('session.start');
    const sessionId = [...host.sessions.keys()].at(-1) ?? '';
    // Leave it once it runs ("Starting…" until the host answered): the answer puts the new session on screen.
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Running/);
    await page.getByRole('button', { name: 'Sessions' }).click();
    await page.getByRole('button', { name: 'New' }).click();
    host.requestInteraction({ kind: 'confirm', id: 'c1', sessionId, agent: 'ShellAgent', actionText: 'Run ls', actions: [], target: null, reasons: ['rule: shell command'], screenshot: null });
    const alert = page.getByRole('alert').filter({ hasText: 'is waiting for you' });
    await alert.waitFor();
    host.handle('session.pause', () => {
      throw new Error(`the pause went wrong: ${TITLE}`);
    });
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('alert').filter({ hasText: 'the pause went wrong' }).waitFor();
    await saveScreenshot(page, 'review-narrow-long-alerts');
    expect(await overflowing(page, '.MuiAlert-root, .MuiAlert-message')).toEqual([]);
    expect(await alert.getByRole('button', { name: 'Open' }).isVisible()).toBe(true);
  });

  it('shows each of the agent’s questions whole above its field in an 800x600 window, not cut off in the field’s border', async () => {
    const { host } = fresh;
    const ui = await fresh.open({ width: 800, height: 600 });
    const { page } = ui;
    await page.getByRole('textbox', { name: 'Request' }).fill('write the date into a file');
    await page.getByRole('textbox', { name: 'Request' }).press('Enter');
    await host.waitForCommand('session.start');
    const sessionId = [...host.sessions.keys()].at(-1) ?? '';
    const questions = ['What should the new file on the desktop be called?', 'Which date format do you want: 2026-11-27, 27/11/2026 or November 27, 2026? The agent uses it for every date it writes.'];
    host.requestInteraction({ kind: 'questions', id: 'q1', sessionId, agent: 'HostAgent', questions });
    const card = page.getByRole('region', { name: '2 questions from the agent' });
    await card.waitFor();
    // Still named by its question, for screen readers.
    for (const question of questions) await card.getByRole('textbox', { name: question }).waitFor();
    await saveScreenshot(page, 'review-narrow-questions');
    expect(await overflowing(page, '.MuiInputLabel-root')).toEqual([]);
    // Each question sits above its field (not over it, where the answer is typed).
    const overlaps = (await page.evaluate(`[...document.querySelectorAll('[aria-labelledby="questions-q1"] .MuiFormControl-root')].map((control) => {
      const label = control.querySelector('label').getBoundingClientRect();
      const field = control.querySelector('.MuiInputBase-root').getBoundingClientRect();
      return label.bottom > field.top + 1;
    })`)) as boolean[];
    expect(overlaps).toEqual([false, false]);
    await card.getByRole('textbox', { name: questions[0] }).fill('today.txt');
    expect(ui.problems).toEqual([]);
  });
  /** A 420 px wide window whose new session waits for the approval of a click on Send. */
  const narrowWithHeldApproval = async () => {
    const { host } = fresh;
    const ui = await fresh.open({ width: 420, height: 800 });
    const { page } = ui;
    await page.getByRole('textbox', { name: 'Request' }).fill('send the report');
    await page.getByRole('textbox', { name: 'Request' }).press('Enter');
    await host.waitForCommand('session.start');
    const sessionId = [...host.sessions.keys()].at(-1) ?? '';
    host.addStep(makeStep(sessionId, 0));
    host.requestInteraction(heldSendApproval(sessionId));
    await page.getByRole('region', { name: 'Approve this action?' }).waitFor();
    await page.waitForTimeout(300);
    return { ui, sessionId };
  };

  it('stacks the agent\'s requests above the trajectory in a 420 px wide window, leaving the trajectory and the request box their width', async () => {
    const { ui } = await narrowWithHeldApproval();
    const { page } = ui;
    await saveScreenshot(page, 'review-420-approval');
    const box = (locator: ReturnType<Page['getByRole']>) => locator.evaluate((element) => element.getBoundingClientRect().toJSON() as { x: number; width: number; height: number });
    // Beside the 320 px panel, the trajectory and the request box were left about 100 px.
    expect((await box(page.getByRole('list', { name: 'Trajectory' }))).width).toBeGreaterThanOrEqual(380);
    expect((await box(page.getByRole('textbox', { name: 'Request' }))).width).toBeGreaterThanOrEqual(250);
    const panel = await box(page.getByRole('complementary', { name: 'Agent requests' }));
    expect(panel.width).toBeGreaterThanOrEqual(400);
    expect(await page.getByRole('button', { name: 'Approve' }).isVisible()).toBe(true);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(420);
    expect(ui.problems).toEqual([]);
  });
  it('keeps the status, the step count and the cost readable beside Pause and Stop in a 420 px wide window', async () => {
    const { ui, sessionId } = await narrowWithHeldApproval();
    const { page } = ui;
    await saveScreenshot(page, 'review-420-status');
    const bar = page.getByRole('region', { name: 'Session status' });
    const rect = (locator: ReturnType<Page['getByRole']>) =>
      locator.evaluate((element) => element.getBoundingClientRect().toJSON() as { left: number; right: number; top: number; bottom: number; width: number });
    // The status had 0 px, and the cost ran under Pause.
    expect((await rect(bar.getByRole('status'))).width).toBeGreaterThanOrEqual(150);
    const pause = await rect(bar.getByRole('button', { name: 'Pause' }));
    for (const testId of ['step-progress', 'session-usage']) {
      const text = await bar.getByTestId(testId).evaluate((element) => element.getBoundingClientRect().toJSON() as { right: number; bottom: number; top: number });
      const beside = text.bottom <= pause.top || text.top >= pause.bottom;
      expect(beside || text.right <= pause.left, testId).toBe(true);
    }
    // At work, the spinner stays on the status's line.
    fresh.host.setStatus(sessionId, 'running', 'Step 2: Asking the model');
    const spinner = bar.locator('.MuiCircularProgress-root');
    await spinner.waitFor();
    const status = await rect(bar.getByRole('status'));
    const spun = await spinner.evaluate((element) => element.getBoundingClientRect().toJSON() as { left: number; top: number; bottom: number });
    await saveScreenshot(page, 'review-420-status-running');
    // Beside it, not on a line of its own above (the spinner turns: its box is not exact).
    expect(status.left).toBeGreaterThan(spun.left);
    expect(spun.bottom > status.top + 4 && spun.top < status.bottom).toBe(true);
    expect(ui.problems).toEqual([]);
  });
});

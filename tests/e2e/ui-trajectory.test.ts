import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUiHost, type FakeUiHost } from '../support/fake-ui-host';
import { makeSession, makeStep, screenshotRef } from '../support/ui-fixtures';
import { openUi, saveScreenshot, type UiPage } from '../support/ui-page';
import { launchChromium } from '../support/web-app';

let browser: Browser;
let host: FakeUiHost;
let ui: UiPage;

beforeAll(async () => {
  browser = await launchChromium();
  host = await startFakeUiHost();
  // A finished session with two rounds: the host hands a sub-task to an AppAgent, then a follow-up.
  const id = 'report';
  const shot = (n: number) => ({ screenshot: screenshotRef(id, `step-${n}.png`), annotated: screenshotRef(id, `step-${n}-annotated.png`) });
  host.addSession(
    makeSession(id, {
      title: 'Write the weekly report',
      request: 'write the weekly report in the text editor',
      status: 'finished',
      result: 'The report is saved',
      roundCount: 2,
      maxSteps: 30,
      createdAt: Date.now() - 60_000,
      tokens: { prompt: 9000, completion: 600 },
      costUsd: 0.0153,
    }),
    [
      makeStep(id, 0, { agent: 'HostAgent', target: null, subtask: null, action: null, actionText: 'Hand over to AppAgent', ...shot(1) }),
      makeStep(id, 1, { ...shot(2) }),
      makeStep(id, 2, { ...shot(3), status: 'FINISH' }),
      makeStep(id, 3, { round: 1, agent: 'HostAgent', target: null, subtask: null, action: null, actionText: 'Hand over to AppAgent', ...shot(4) }),
      makeStep(id, 4, { round: 1, subtask: 'Save as PDF', actionText: 'Press ctrl+shift+s', ...shot(5), status: 'FINISH' }),
    ],
  );
  host.sessions.get(id)!.blackboard.requests.push('now save it as a PDF');
  ui = await openUi(browser, host);
});

afterAll(async () => {
  await ui?.close();
  await host?.close();
  await browser?.close();
});

describe('the trajectory in the browser UI (fake host)', () => {
  it('groups rounds and sub-tasks, opens a step’s detail, and sends a follow-up as session.continue', async () => {
    const { page } = ui;
    await page.getByRole('link', { name: /Write the weekly report/ }).click();
    const trajectory = page.getByRole('list', { name: 'Trajectory' });
    await expect.poll(() => trajectory.getByRole('listitem').count()).toBe(5);
    await trajectory.getByRole('heading', { name: 'write the weekly report in the text editor' }).waitFor();
    await trajectory.getByText('Round 2').waitFor();
    // The follow-up's request comes from the blackboard once it is fetched; until then the header says "Follow-up".
    await trajectory.getByText('Save as PDF').first().waitFor();
    expect(await trajectory.getByRole('heading', { name: 'Step 1', exact: true }).count()).toBe(1);
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Finished: The report is saved/);
    expect(await page.getByTestId('step-progress').textContent()).toBe('Round 2 · Step 2 of 30');
    expect(await page.getByTestId('session-usage').textContent()).toBe('9.6k tokens · $0.015');
    await saveScreenshot(page, 'trajectory');

    // Step detail: keyboard from the trajectory (T, arrows, Enter).
    await page.keyboard.press('t');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const detail = page.getByRole('dialog', { name: /Step 2/ });
    await detail.waitFor();
    await detail.getByText('Raw model reply').waitFor();
    await detail.getByText(/"Thought": "Step 2: type the next paragraph."/).waitFor();
    await detail.getByText('Asking the model').waitFor();
    const image = detail.getByRole('img', { name: /Screenshot of step 2/ });
    expect(await image.getAttribute('alt')).toContain('annotated');
    // Shown from blob: addresses, valid only in this page: no image address carries the token.
    const sources = await page.locator('img').evaluateAll((images) => images.map((img) => img.getAttribute('src') ?? ''));
    expect(sources.length).toBeGreaterThan(1);
    expect(sources.every((src) => src.startsWith('blob:') && !src.includes(host.token))).toBe(true);
    expect(page.url()).not.toContain(host.token);
    await detail.getByRole('button', { name: 'Clean' }).click();
    expect(await image.getAttribute('alt')).toContain('clean');
    await detail.getByRole('button', { name: '100%' }).click();
    await expect.poll(() => image.evaluate((img) => (img as unknown as { width: number }).width)).toBe(1280);
    await detail.getByRole('button', { name: 'Fit' }).click();
    await saveScreenshot(page, 'step-detail');
    await page.keyboard.press('Alt+ArrowRight');
    await page.getByRole('dialog', { name: /Step 3/ }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(host.commands('step.detail').map((command) => command.stepId)).toEqual(['report-step-1', 'report-step-2']);

    // The session has ended: Send asks for a follow-up round in it.
    await page.getByText(/Follow-up: Send adds a new round/).waitFor();
    await page.getByRole('textbox', { name: 'Request' }).fill('now email it to Ana');
    await page.getByRole('textbox', { name: 'Request' }).press('Enter');
    const follow = await host.waitForCommand('session.continue');
    expect(follow).toMatchObject({ sessionId: 'report', request: 'now email it to Ana' });
    expect(host.commands('session.start')).toHaveLength(0);
    host.addStep(makeStep('report', 5, { round: 2, agent: 'HostAgent', target: null, subtask: null }));
    await trajectory.getByRole('heading', { name: 'now email it to Ana' }).waitFor();
    await page.getByRole('status').first().filter({ hasText: /^Running/ }).waitFor();
    expect(ui.problems).toEqual([]);
  });

  it('says in full why a run paused that the user did not pause, until it goes on', async () => {
    const { page } = ui;
    const why =
      "The disk that holds Deskhand's data (/home/ana/.config/Deskhand) is full (SQLITE_FULL): step 6 could not be saved. " +
      'Free some space, then Resume to save it (Stop ends the round, without it if there is still no room)';
    const notice = page.getByRole('note', { name: 'Why the run is paused' });
    host.setStatus('report', 'paused', why, 'disk');
    await notice.waitFor();
    expect(await notice.textContent()).toBe(why);
    // The status line has room for the start of it only.
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe(`Paused: ${why}`);
    await saveScreenshot(page, 'paused-notice');
    host.setStatus('report', 'running', 'Resumed');
    await notice.waitFor({ state: 'detached' });
    // Paused with the button: the status line says so, and there is nothing more to explain.
    host.setStatus('report', 'paused', 'Paused by you', 'user');
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Paused by you');
    expect(await notice.count()).toBe(0);
    host.setStatus('report', 'running', 'Resumed');
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Running: Resumed');
  });

  it('pauses, resumes and stops the run with the status bar buttons', async () => {
    const { page } = ui;
    await page.getByRole('button', { name: 'Pause' }).click();
    await host.waitForCommand('session.pause');
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Paused/);
    await page.getByRole('button', { name: 'Resume' }).click();
    await host.waitForCommand('session.resume');
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Running/);
    await page.getByRole('button', { name: 'Stop' }).click();
    await host.waitForCommand('session.stop');
    // Said once: not "Stopped: Stopped by you".
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Stopped by you');
    expect(await page.getByRole('button', { name: 'Stop' }).isDisabled()).toBe(true);
  });

  it('keeps 5,000 steps smooth: a bounded number of rows in the DOM, wherever the list is scrolled', async () => {
    const { page } = ui;
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.getByRole('textbox', { name: 'Request' }).fill('a very long run');
    await page.getByRole('button', { name: 'Send' }).click();
    await host.waitForCommand('session.start', (command) => command.request === 'a very long run');
    const id = [...host.sessions.keys()].at(-1) ?? '';
    const trajectory = page.getByRole('list', { name: 'Trajectory' });
    const batch = 1_000;
    for (let start = 0; start < 5_000; start += batch) {
      host.addSteps(Array.from({ length: batch }, (_unused, i) => makeStep(id, start + i, { subtask: `Part ${Math.floor((start + i) / 50) + 1}` })));
    }
    await trajectory.getByRole('heading', { name: 'Step 5000', exact: true }).waitFor({ timeout: 20_000 });
    const rows = await trajectory.getByRole('listitem').count();
    expect(rows).toBeLessThan(100);
    expect(await trajectory.getByRole('listitem').first().getAttribute('aria-setsize')).toBe('5000');

    // Scrolled to the middle: still a window of rows, not thousands.
    await trajectory.evaluate((list) => {
      const scroller = list.parentElement;
      if (scroller) scroller.scrollTop = scroller.scrollHeight / 2;
    });
    await page.waitForTimeout(200);
    expect(await trajectory.getByRole('listitem').count()).toBeLessThan(100);

    // A new step at the end is painted quickly even with 5,000 before it.
    await page.getByRole('button', { name: 'Jump to newest' }).click();
    const before = Date.now();
    host.addStep(makeStep(id, 5_000));
    await trajectory.getByRole('heading', { name: 'Step 5001', exact: true }).waitFor();
    expect(Date.now() - before).toBeLessThan(2_000);
    const nodes = Number(await page.evaluate("document.querySelectorAll('*').length"));
    expect(nodes).toBeLessThan(5_000);
    await saveScreenshot(page, 'trajectory-5000');
    expect(ui.problems).toEqual([]);
  });

  it('lets the wheel stop the following while steps stream in every few milliseconds', async () => {
    const { page } = ui;
    // The host runs one session at a time: the previous test's run ends first.
    host.end([...host.sessions.keys()].at(-1) ?? '', 'finished', 'Done');
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.getByRole('textbox', { name: 'Request' }).fill('a fast run');
    await page.getByRole('button', { name: 'Send' }).click();
    await host.waitForCommand('session.start', (command) => command.request === 'a fast run');
    const id = [...host.sessions.keys()].at(-1) ?? '';
    const trajectory = page.getByRole('list', { name: 'Trajectory' });
    host.addSteps(Array.from({ length: 100 }, (_unused, i) => makeStep(id, i)));
    await trajectory.getByRole('heading', { name: 'Step 100', exact: true }).waitFor();
    const scrollerState = () =>
      trajectory.evaluate((list) => {
        const scroller = list.parentElement;
        if (!scroller) throw new Error('the trajectory has no scroller');
        return { top: scroller.scrollTop, fromBottom: scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight };
      });

    let next = 100;
    const stream = setInterval(() => host.addStep(makeStep(id, next++)), 5);
    try {
      await page.waitForTimeout(300);
      // The list itself is as tall as all its steps; aim at the middle of the part on screen.
      const box = await trajectory.evaluate((list) => {
        const scroller = list.parentElement;
        if (!scroller) throw new Error('the trajectory has no scroller');
        const { left, top, width, height } = scroller.getBoundingClientRect();
        return { x: left + width / 2, y: top + height / 2 };
      });
      await page.mouse.move(box.x, box.y);
      for (let i = 0; i < 4; i++) {
        await page.mouse.wheel(0, -300);
        await page.waitForTimeout(60);
      }
      await page.waitForTimeout(300);
    } finally {
      clearInterval(stream);
    }
    await page.getByRole('button', { name: 'Jump to newest' }).waitFor({ timeout: 2_000 });
    const readingBack = await scrollerState();
    expect(readingBack.fromBottom, 'the view stayed where the wheel took it').toBeGreaterThan(600);

    // New steps no longer move the view; Jump to newest follows again.
    host.addSteps(Array.from({ length: 5 }, () => makeStep(id, next++)));
    await trajectory.getByRole('listitem').first().waitFor();
    await page.waitForTimeout(300);
    expect((await scrollerState()).top).toBe(readingBack.top);
    await page.getByRole('button', { name: 'Jump to newest' }).click();
    host.addStep(makeStep(id, next++));
    await trajectory.getByRole('heading', { name: `Step ${next}`, exact: true }).waitFor();
    await page.waitForTimeout(200);
    expect((await scrollerState()).fromBottom).toBeLessThanOrEqual(48);
    expect(ui.problems).toEqual([]);
  });

  it('keeps the keyboard focus on a step while new ones stream in, and on the step last viewed after its detail closes', async () => {
    const { page } = ui;
    // The host runs one session at a time: the previous test's run ends first.
    host.end([...host.sessions.keys()].at(-1) ?? '', 'finished', 'Done');
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.getByRole('textbox', { name: 'Request' }).fill('a run read by keyboard');
    await page.getByRole('button', { name: 'Send' }).click();
    await host.waitForCommand('session.start', (command) => command.request === 'a run read by keyboard');
    const id = [...host.sessions.keys()].at(-1) ?? '';
    const trajectory = page.getByRole('list', { name: 'Trajectory' });
    host.addSteps(Array.from({ length: 40 }, (_unused, i) => makeStep(id, i)));
    await trajectory.getByRole('heading', { name: 'Step 40', exact: true }).waitFor();
    await page.waitForTimeout(200);
    const focusedRow = () => page.evaluate("document.activeElement?.getAttribute('data-index') ?? document.activeElement?.tagName");

    // T puts the focus on the first step on screen, not the newest: the list stops following.
    await page.keyboard.press('t');
    const row = Number(await focusedRow());
    expect(row).toBeLessThan(39);
    host.addSteps(Array.from({ length: 40 }, (_unused, i) => makeStep(id, 40 + i)));
    await expect.poll(() => trajectory.getByRole('listitem').first().getAttribute('aria-setsize')).toBe('80');
    await page.waitForTimeout(300);
    expect(await focusedRow()).toBe(String(row));
    await page.getByRole('button', { name: 'Jump to newest' }).waitFor();

    // The detail of the step, then the next one; meanwhile the list scrolls far away from both.
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: new RegExp(`Step ${row + 1}\\b`) }).waitFor();
    await page.keyboard.press('Alt+ArrowRight');
    await page.getByRole('dialog', { name: new RegExp(`Step ${row + 2}\\b`) }).waitFor();
    // Under the modal dialog the list is hidden from the accessibility tree: found by its id.
    const list = page.locator('#deskhand-trajectory');
    await list.evaluate((element) => {
      const scroller = element.parentElement;
      if (scroller) scroller.scrollTop = scroller.scrollHeight;
    });
    await expect.poll(() => list.locator(`[data-index="${row + 1}"]`).count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect.poll(focusedRow).toBe(String(row + 1));
    const onScreen = await trajectory.evaluate((list, index) => {
      const scroller = list.parentElement;
      const focused = list.querySelector(`[data-index="${index}"]`);
      if (!scroller || !focused) return false;
      const view = scroller.getBoundingClientRect();
      const box = focused.getBoundingClientRect();
      return box.bottom > view.top && box.top < view.bottom;
    }, row + 1);
    expect(onScreen).toBe(true);
    expect(ui.problems).toEqual([]);
  });
});

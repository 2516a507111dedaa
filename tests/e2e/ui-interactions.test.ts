import { describe, expect, it } from 'vitest';
import { FakeHostError } from '../support/fake-ui-host';
import { screenshotRef } from '../support/ui-fixtures';
import { framesAtOnce, saveScreenshot, startSessionWithStep, uiPerTest } from '../support/ui-page';

const fresh = uiPerTest();

/** A session on screen with one step done, as if the user had just sent `request`. */
function runningSession(request: string): Promise<string> {
  return startSessionWithStep(fresh.ui.page, fresh.host, request, (sessionId) => ({
    screenshot: screenshotRef(sessionId, 'step-1.png'),
    annotated: screenshotRef(sessionId, 'step-1-annotated.png'),
  }));
}

describe('questions and confirmations in the browser UI (fake host)', () => {
  it('answers the agent’s questions in a JSONForms form, refusing empty answers', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await runningSession('rename the three newest PDFs in Downloads');
    host.requestInteraction({
      kind: 'questions',
      id: 'q1',
      sessionId,
      agent: 'HostAgent',
      questions: ['Which folder holds the PDFs?', 'What should the new names look like?'],
    });
    const submit = page.getByRole('button', { name: 'Submit answers' });
    await submit.waitFor();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Waiting for you/);

    // Both answers are required: submitting with one missing shows the problem and sends nothing.
    await page.getByRole('textbox', { name: 'Which folder holds the PDFs?' }).fill('~/Downloads');
    await submit.click();
    await page.getByText('Answer every question before submitting.').waitFor();
    await page.getByText('is required').first().waitFor();
    expect(host.commands('interaction.answer')).toHaveLength(0);
    await saveScreenshot(page, 'questions');

    await page.getByRole('textbox', { name: 'What should the new names look like?' }).fill('Their titles');
    await submit.click();
    const answer = await host.waitForCommand('interaction.answer');
    expect(answer).toMatchObject({ sessionId, interactionId: 'q1', answers: ['~/Downloads', 'Their titles'] });
    // The form goes when the host says the questions are resolved.
    await expect.poll(() => submit.count()).toBe(0);

    // The answers are on the blackboard.
    await page.getByRole('button', { name: 'Blackboard' }).click();
    const qa = page.getByRole('list', { name: 'Questions and answers' });
    await qa.getByText('Their titles').waitFor();
    await saveScreenshot(page, 'blackboard');
    expect(ui.problems).toEqual([]);
  });

  it('after the answers, the keyboard goes on to the form the agent still shows, not to the request box', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await runningSession('plan a trip for us');
    // The agent asks a question and shows a form in the same step: both wait.
    host.upsertForm({
      formId: 'trip',
      sessionId,
      agent: 'AppAgent',
      schema: { type: 'object', title: 'Trip details', properties: { city: { type: 'string', title: 'City' } } },
      uischema: { type: 'VerticalLayout', elements: [{ type: 'Control', scope: '#/properties/city' }, { type: 'Button', label: 'Search', props: { action: 'search' } }] },
      data: {},
      state: 'open',
    });
    host.requestInteraction({ kind: 'questions', id: 'q1', sessionId, agent: 'AppAgent', questions: ['Who is travelling?'] });
    const form = page.getByRole('region', { name: 'Trip details' });
    await form.waitFor();
    await page.getByRole('textbox', { name: 'Who is travelling?' }).fill('Ana and Rui');
    await page.getByRole('button', { name: 'Submit answers' }).focus();
    await page.keyboard.press('Enter');
    await host.waitForCommand('interaction.answer');
    await expect.poll(() => page.getByRole('button', { name: 'Submit answers' }).count()).toBe(0);
    await expect.poll(() => form.evaluate((element) => element.contains(element.ownerDocument.activeElement))).toBe(true);
    // Tab goes on into the form's fields.
    await page.keyboard.press('Tab');
    expect(await form.getByRole('textbox', { name: 'City' }).evaluate((field) => field === field.ownerDocument.activeElement)).toBe(true);
    expect(ui.problems).toEqual([]);
  });

  it('approves a held step with the button, and rejects another with a note and the Escape key', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await runningSession('clean up the build folder');
    host.requestInteraction({
      kind: 'confirm',
      id: 'c1',
      sessionId,
      agent: 'ShellAgent',
      actionText: "Run 'rm -rf build/'",
      actions: [{ function: 'execute_command', args: { command: 'rm -rf build/' } }],
      target: 'Terminal',
      reasons: ['rule: destructive shell command (rm -rf)', 'the model asked for confirmation'],
      screenshot: screenshotRef(sessionId, 'step-2-annotated.png'),
    });
    const card = page.getByRole('region', { name: 'Approve this action?' });
    await card.waitFor();
    await expect.poll(() => card.getByText("Run 'rm -rf build/'").count()).toBe(1);
    // The summary is shortened; every argument is shown as it will be sent.
    expect(await card.getByTestId('confirm-exact').textContent()).toBe('execute_command {\n  "command": "rm -rf build/"\n}');
    await card.getByText('rule: destructive shell command (rm -rf)').waitFor();
    await card.getByText('Terminal').waitFor();
    await expect.poll(() => card.getByRole('img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1280);
    await saveScreenshot(page, 'confirm');
    // The status line says it once, not "Waiting for you: Waiting for your approval".
    expect(await page.getByRole('status').first().textContent()).toBe('Waiting for your approval');

    await page.getByRole('button', { name: 'Approve' }).click();
    const approved = await host.waitForCommand('interaction.decide', (command) => command.interactionId === 'c1');
    expect(approved).toMatchObject({ sessionId, approved: true });
    expect(approved.note).toBeUndefined();
    await expect.poll(() => card.count()).toBe(0);

    host.requestInteraction({
      kind: 'confirm',
      id: 'c2',
      sessionId,
      agent: 'AppAgent',
      actionText: "Click 'Send' in Mail",
      actions: [{ function: 'click', args: { x: 10, y: 20 } }],
      target: "Mail: button 'Send'",
      reasons: ["rule: control text matches 'Send'"],
      screenshot: null,
    });
    await card.waitFor();
    await card.getByRole('textbox', { name: 'Note for the agent (optional)' }).fill('Not yet: the draft needs a subject');
    // Esc in the note only leaves it (pressed to stop typing, it must not decide); the next one rejects.
    await page.keyboard.press('Escape');
    await expect.poll(() => card.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    await page.waitForTimeout(200);
    expect(host.commands('interaction.decide').filter((command) => command.interactionId === 'c2')).toHaveLength(0);
    await page.keyboard.press('Escape');
    const rejected = await host.waitForCommand('interaction.decide', (command) => command.interactionId === 'c2');
    expect(rejected).toMatchObject({ sessionId, approved: false, note: 'Not yet: the draft needs a subject' });
    await expect.poll(() => card.count()).toBe(0);

    // The keyboard approves too (Ctrl+Enter), from anywhere outside a dialog.
    host.requestInteraction({
      kind: 'confirm',
      id: 'c3',
      sessionId,
      agent: 'AppAgent',
      actionText: "Press ctrl+s",
      actions: [{ function: 'hotkey', args: { keys: ['ctrl', 's'] } }],
      target: null,
      reasons: ['confirmation mode: always'],
      screenshot: null,
    });
    await card.waitFor();
    await page.keyboard.press('Control+Enter');
    const viaKeys = await host.waitForCommand('interaction.decide', (command) => command.interactionId === 'c3');
    expect(viaKeys.approved).toBe(true);
    expect(host.commands('interaction.decide')).toHaveLength(3);

    // Escape while typing a request leaves the held step alone.
    host.requestInteraction({
      kind: 'confirm',
      id: 'c4',
      sessionId,
      agent: 'AppAgent',
      actionText: 'Close the window',
      actions: [],
      target: 'Text Editor',
      reasons: ['rule: closing an application'],
      screenshot: null,
    });
    await card.waitFor();
    await page.getByRole('textbox', { name: 'Request' }).click();
    await page.keyboard.press('Escape');
    await page.waitForTimeout(300);
    expect(host.commands('interaction.decide')).toHaveLength(3);
    expect(await card.count()).toBe(1);
    expect(ui.problems).toEqual([]);
  });

  it('shows that a session not on screen waits for you, opens it from the alert, and Stop still stops it', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await runningSession('archive the old reports');
    await page.getByRole('button', { name: 'New' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').count()).toBe(0);
    host.requestInteraction({
      kind: 'confirm',
      id: 'w1',
      sessionId,
      agent: 'ShellAgent',
      actionText: "Run 'rm -r reports/2019'",
      actions: [],
      target: 'Terminal',
      reasons: ['rule: destructive shell command'],
      screenshot: null,
    });
    const alert = page.getByRole('alert').filter({ hasText: 'archive the old reports is waiting for you' });
    await alert.waitFor();
    await expect.poll(() => page.title()).toBe('(1) Deskhand: waiting for you');
    await saveScreenshot(page, 'waiting-elsewhere');

    // By keyboard: the alert's Open button takes the focus and opens the session, whose card then has it.
    await alert.getByRole('button', { name: 'Open' }).focus();
    // Frames at once: the focus moves in a frame after the session opened, and the store's update is
    // committed before that await ends (a store update renders at once), so no frame can come first.
    const framesAsUsual = await framesAtOnce(page);
    await page.keyboard.press('Enter');
    const card = page.getByRole('region', { name: 'Approve this action?' });
    await card.waitFor();
    await expect.poll(() => alert.count()).toBe(0);
    await expect.poll(() => card.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    await framesAsUsual();

    // Back on "New": Ctrl+. and the Stop button act on the running session, not on nothing.
    await page.getByRole('button', { name: 'New' }).click();
    await alert.waitFor();
    expect(await page.getByRole('button', { name: 'Stop' }).isDisabled()).toBe(false);
    await page.locator('body').click({ position: { x: 700, y: 400 } });
    await page.keyboard.press('Control+.');
    expect((await host.waitForCommand('session.stop')).sessionId).toBe(sessionId);
    await expect.poll(() => alert.count()).toBe(0);
    await expect.poll(() => page.title()).toBe('Deskhand');
    expect(ui.problems).toEqual([]);
  });

  it('Esc closing an error rejects nothing; Ctrl+Enter approves from the request box; the focus moves on after a decision', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await runningSession('tidy the desktop');
    const held = (id: string, actionText: string) =>
      host.requestInteraction({ kind: 'confirm', id, sessionId, agent: 'AppAgent', actionText, actions: [], target: null, reasons: ['confirmation mode: always'], screenshot: null });
    const card = page.getByRole('region', { name: 'Approve this action?' });
    const isFocused = (locator: typeof card) => locator.evaluate((element) => element === element.ownerDocument.activeElement);

    held('k1', 'Move report.txt to Documents');
    await card.waitFor();
    host.handle('session.pause', () => {
      throw new FakeHostError('internal', 'The pause went wrong');
    });
    await page.getByRole('button', { name: 'Pause' }).click();
    const error = page.getByRole('alert').filter({ hasText: 'The pause went wrong' });
    await error.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => error.count()).toBe(0);
    await page.waitForTimeout(300);
    expect(host.commands('interaction.decide')).toHaveLength(0);
    expect(await card.count()).toBe(1);

    // Ctrl+Enter in the request box approves (its hint says so); the focus stays where the user put it.
    await page.getByRole('textbox', { name: 'Request' }).click();
    await page.keyboard.press('Control+Enter');
    expect((await host.waitForCommand('interaction.decide', (command) => command.interactionId === 'k1')).approved).toBe(true);
    await expect.poll(() => card.count()).toBe(0);
    expect(await page.evaluate('document.activeElement?.id')).toBe('deskhand-request');

    // After Approve the next held step has the focus; after the last one, the request box.
    held('k2', 'Empty the trash');
    held('k3', 'Close the file manager');
    await expect.poll(() => card.count()).toBe(2);
    await card.first().getByRole('button', { name: 'Approve' }).click();
    await host.waitForCommand('interaction.decide', (command) => command.interactionId === 'k2');
    await expect.poll(() => card.count()).toBe(1);
    await expect.poll(() => isFocused(card)).toBe(true);
    await page.keyboard.press('Escape');
    expect((await host.waitForCommand('interaction.decide', (command) => command.interactionId === 'k3')).approved).toBe(false);
    await expect.poll(() => card.count()).toBe(0);
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('deskhand-request');
    expect(ui.problems).toEqual([]);
  });

  it("Ctrl+Enter in an agent's form is the form's: it approves no held step, which it still does from outside the form", async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await runningSession('book the trip');
    host.upsertForm({
      formId: 'trip',
      sessionId,
      agent: 'AppAgent',
      schema: { type: 'object', title: 'Trip details', properties: { city: { type: 'string', title: 'City' } } },
      uischema: null,
      data: {},
      state: 'open',
    });
    host.requestInteraction({
      kind: 'confirm',
      id: 'pay',
      sessionId,
      agent: 'AppAgent',
      actionText: "Click 'Pay' in Firefox",
      actions: [{ function: 'click', args: { x: 10, y: 20 } }],
      target: 'Firefox',
      reasons: ["rule: control text matches 'Pay'"],
      screenshot: null,
    });
    const card = page.getByRole('region', { name: 'Approve this action?' });
    await card.waitFor();
    const city = page.getByRole('region', { name: 'Trip details' }).getByRole('textbox', { name: 'City' });
    await city.fill('Lisbon');
    await city.press('Control+Enter');
    await page.waitForTimeout(300);
    expect(host.commands('interaction.decide')).toHaveLength(0);
    expect(await card.count()).toBe(1);

    await city.evaluate((field) => (field as unknown as { blur(): void }).blur());
    await page.keyboard.press('Control+Enter');
    expect(await host.waitForCommand('interaction.decide', (command) => command.interactionId === 'pay')).toMatchObject({ approved: true });
  });

  it('raises a notification for a held step when the window is not focused (asking permission first)', async () => {
    const { host } = fresh;
    // A stand-in for the browser's Notification API that records what the page does with it.
    const initScript = `
      window.__notifications = [];
      window.__closed = [];
      window.__permissionAsked = 0;
      class FakeNotification {
        static permission = 'default';
        static requestPermission() { window.__permissionAsked += 1; FakeNotification.permission = 'granted'; return Promise.resolve('granted'); }
        constructor(title, options) { this.tag = options && options.tag; window.__notifications.push({ title, body: options && options.body }); }
        close() { window.__closed.push(this.tag); }
      }
      window.Notification = FakeNotification;
      document.hasFocus = () => false;
    `;
    const ui = await fresh.open({ initScript });
    const sessionId = await runningSession('send the newsletter');
    host.requestInteraction({
      kind: 'confirm',
      id: 'n1',
      sessionId,
      agent: 'AppAgent',
      actionText: "Click 'Send' in Mail",
      actions: [{ function: 'click', args: { x: 40, y: 60 } }],
      target: 'Mail',
      reasons: ["rule: control text matches 'Send'"],
      screenshot: null,
    });
    await ui.page.getByRole('region', { name: 'Approve this action?' }).waitFor();
    await expect.poll(() => ui.page.evaluate('window.__notifications.length')).toBe(1);
    expect(await ui.page.evaluate('window.__permissionAsked')).toBe(1);
    // Its kind only, never the action's text: notifications show on the lock screen.
    expect(await ui.page.evaluate('window.__notifications[0]')).toEqual({
      title: 'Deskhand waits for your approval',
      body: 'A mouse action waits for your approval',
    });
    await expect.poll(() => ui.page.title()).toBe('(1) Deskhand: waiting for you');
    expect(await ui.page.evaluate('window.__closed')).toEqual([]);

    // Decided (here in Deskhand): the notification, which stays until clicked, is closed.
    await ui.page.getByRole('button', { name: 'Approve' }).click();
    await host.waitForCommand('interaction.decide', (command) => command.interactionId === 'n1');
    await expect.poll(() => ui.page.evaluate('window.__closed')).toEqual(['n1']);
    await expect.poll(() => ui.page.title()).toBe('Deskhand');
  });

  it('says the session’s status once when the host’s note already says it (paused by you, resumed, waiting), and keeps it before a result', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await runningSession('tidy the desktop');
    const status = () => page.getByRole('status').first().textContent();
    host.setStatus(sessionId, 'paused', 'Paused by you', 'user');
    await expect.poll(status).toBe('Paused by you');
    host.setStatus(sessionId, 'waiting', 'Resumed: waiting for you');
    await expect.poll(status).toBe('Resumed: waiting for you');
    host.setStatus(sessionId, 'running', 'Going on with your answers');
    await expect.poll(status).toBe('Running: Going on with your answers');
    host.end(sessionId, 'failed', 'Waiting for the window failed');
    await expect.poll(status).toBe('Failed: Waiting for the window failed');
    expect(ui.problems).toEqual([]);
  });

  it('says under the request box what the run waits on (the user, a pause), not that Deskhand is working', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const box = page.getByRole('textbox', { name: 'Request' });
    const hint = () => box.evaluate((element) => element.ownerDocument.getElementById(element.getAttribute('aria-describedby') ?? '')?.textContent ?? '');
    const sessionId = await runningSession('tidy the desktop');
    expect(await hint()).toBe('Deskhand is working on this session: wait, Pause or Stop it before sending more.');
    host.requestInteraction({ kind: 'confirm', id: 'c1', sessionId, agent: 'ShellAgent', actionText: 'Run ls', actions: [], target: null, reasons: ['rule: shell command'], screenshot: null });
    await expect.poll(hint).toBe('The agent is waiting for you: reply to it, or Stop it, before sending more.');
    host.setStatus(sessionId, 'paused', 'Paused by you', 'user');
    await expect.poll(hint).toBe('This session is paused: Resume or Stop it before sending more.');
    // From "New": the session that holds Send back is named, with what it waits on.
    await page.getByRole('button', { name: 'New' }).click();
    await expect.poll(hint).toBe('“tidy the desktop” is paused (one session at a time): Resume or Stop it before sending a request.');
    host.setStatus(sessionId, 'waiting', 'Resumed: waiting for you');
    await expect.poll(hint).toBe('“tidy the desktop” is waiting for you (one session at a time): reply to it, or Stop it, before sending a request.');
    host.setStatus(sessionId, 'running', 'Resumed');
    await expect.poll(hint).toBe('Deskhand is working on “tidy the desktop” (one session at a time): wait, or Stop it, before sending a request.');
    expect(ui.problems).toEqual([]);
  });

  it('takes a press of Submit answers right after the last answer is typed, though the warnings above it go as the field lets go', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await runningSession('rename the photos');
    host.requestInteraction({ kind: 'questions', id: 'q1', sessionId, agent: 'HostAgent', questions: ['Which folder?', 'Which names?'] });
    const submit = page.getByRole('button', { name: 'Submit answers' });
    await submit.click();
    await page.getByText('Answer every question before submitting.').waitFor();
    await page.getByRole('textbox', { name: 'Which folder?' }).fill('~/Pictures');
    await page.getByRole('textbox', { name: 'Which names?' }).fill('By date');
    // A person's press: the button goes down, and comes up a moment later. Pressing takes the focus out of
    // the field, which passes its answer on, and the warnings go: the button must not slip from under the pointer.
    const box = await submit.boundingBox();
    if (!box) throw new Error('Submit answers is not on screen');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    // Held past the field's holding back of keystrokes: the answer arrives and the warnings go while it is down.
    await page.waitForTimeout(800);
    await page.mouse.up();
    const answer = await host.waitForCommand('interaction.answer', undefined, 3_000);
    expect(answer.answers).toEqual(['~/Pictures', 'By date']);
    expect(ui.problems).toEqual([]);
  });
  it('Enter in the request box while the agent waits for an answer, or is paused, says so rather than "wait for it to end"', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await runningSession('make a file and ask me its name');
    host.requestInteraction({ kind: 'questions', id: 'q1', sessionId, agent: 'HostAgent', questions: ['Which file name?'] });
    await page.getByRole('button', { name: 'Submit answers' }).waitFor();
    const box = page.getByRole('textbox', { name: 'Request' });
    await box.fill('notes.txt');
    await box.press('Enter');
    const waiting = page.getByRole('alert').filter({ hasText: 'busy' }).or(page.getByRole('alert').filter({ hasText: 'waiting for you' }));
    await waiting.waitFor();
    expect(await waiting.textContent()).toBe('The agent is waiting for you: reply to it, or Stop it, before sending more.');
    await waiting.getByRole('button', { name: 'Close' }).click();
    await waiting.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await box.press('Enter');
    const paused = page.getByRole('alert').filter({ hasText: /busy|paused/ });
    await paused.waitFor();
    expect(await paused.textContent()).toBe('This session is paused: Resume or Stop it before sending more.');
    expect(host.commands('session.continue')).toHaveLength(0);
    expect(host.commands('session.start')).toHaveLength(1);
  });
  it('says how long the agent has been at the same thing once it takes a while (a slow model, a long command)', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await runningSession('sort the photos by year');
    host.setStatus(sessionId, 'running', 'Step 2: Asking the model');
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Running: Step 2: Asking the model');
    const elapsed = page.getByRole('region', { name: 'Session status' }).getByTestId('status-elapsed');
    await page.waitForTimeout(1000);
    expect(await elapsed.count()).toBe(0);
    await expect.poll(() => elapsed.textContent(), { timeout: 10_000 }).toMatch(/^for [5-9] s$/);
    await saveScreenshot(page, 'status-elapsed');
    // Counted from the host's latest news: the next one starts again at nothing.
    host.setStatus(sessionId, 'running', 'Step 2: Acting');
    await expect.poll(() => elapsed.count()).toBe(0);
    // Not while the agent waits on the user: that wait is theirs.
    host.requestInteraction({ kind: 'questions', id: 'q1', sessionId, agent: 'HostAgent', questions: ['Which year first?'] });
    await page.waitForTimeout(6000);
    expect(await elapsed.count()).toBe(0);
    expect(ui.problems).toEqual([]);
  });
  it('starts a new session in shell mode when Shell is chosen (no screen needed); a follow-up offers no choice', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const shell = page.getByRole('button', { name: 'Shell', exact: true });
    expect(await page.getByRole('button', { name: 'Desktop', exact: true }).getAttribute('aria-pressed')).toBe('true');
    await shell.click();
    expect(await shell.getAttribute('aria-pressed')).toBe('true');
    await saveScreenshot(page, 'request-mode');
    await page.getByRole('textbox', { name: 'Request' }).fill('list my home folder');
    await page.getByRole('textbox', { name: 'Request' }).press('Enter');
    const start = await host.waitForCommand('session.start');
    expect(start).toMatchObject({ request: 'list my home folder', mode: 'shell' });
    // A follow-up goes on in the session's own mode.
    await expect.poll(() => shell.count()).toBe(0);
    await page.getByText('The agent is at work: its first step shows here once it has chosen a command.').waitFor();
    expect(ui.problems).toEqual([]);
  });
});

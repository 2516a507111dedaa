import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelServer, Scenario } from '../fixtures/model-server';
import { sendRequest, startDesktopE2e, type DesktopE2e } from '../support/desktop-e2e';
import { replies } from '../support/host-harness';
import type { WebApp } from '../support/web-app';

// The whole app for real: browser-mode UI in Chromium, the host, the real device client on an X display
// with an xterm, and the scripted model. The user's answers, approvals and form input go through the UI.

const { app: agent, hostTo, host } = replies;
const shell = (command: string, status = 'CONTINUE', extra: Record<string, unknown> = {}) =>
  agent({ Function: 'execute_command', Args: { command }, Status: status, ...extra });

let e2e: DesktopE2e;

beforeAll(async () => {
  e2e = await startDesktopE2e('deskhand-ui-flow-');
});

afterAll(() => e2e?.close());

async function open(scenario: Scenario): Promise<{ page: Page; model: ModelServer; app: WebApp }> {
  const model = await e2e.useModel(scenario);
  const app = await e2e.startApp(model, join(e2e.work, `data-${scenario.name.replace(/\W+/g, '-')}`));
  const page = await e2e.newPage();
  await page.goto(app.url);
  return { page, model, app };
}

async function finished(page: Page, status: RegExp): Promise<void> {
  await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: 30_000 }).toMatch(status);
}

describe('the UI steers a real run', () => {
  it('answers a question in the form and approves a held command, which then runs', async () => {
    const out = join(e2e.work, 'answer.txt');
    const { page, model } = await open({
      name: 'question and approval',
      steps: [
        host({ Status: 'PENDING', Questions: ['What should the file say?'] }),
        { ...hostTo('ShellAgent', 'write the answer into the file'), expect: { contains: ['Q: "What should the file say?" A: hello from the form'] } },
        { ...shell(`echo 'hello from the form' > ${out}`), expect: { contains: ['write the answer into the file'] } },
        { ...shell('', 'FINISH', { Comment: 'written' }), expect: { contains: ['hello from the form'] } },
        host({ Status: 'FINISH', Comment: 'The file says **what you asked**' }),
      ],
    });
    await sendRequest(page, 'write a file with what I tell you');

    const submit = page.getByRole('button', { name: 'Submit answers' });
    await submit.waitFor({ timeout: 30_000 });
    await page.getByRole('textbox', { name: 'What should the file say?' }).fill('hello from the form');
    await submit.click();

    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor({ timeout: 30_000 });
    expect(existsSync(out)).toBe(false);
    await page.getByRole('region', { name: 'Approve this action?' }).getByText('rule: shell command').waitFor();
    // A shell command acts on no window: the card says so rather than "the screen".
    await page.getByRole('region', { name: 'Approve this action?' }).getByText('the shell (a command runs, no window)').waitFor();
    await approve.click();

    // The model's Markdown: plain in the status line, formatted in the trajectory.
    await finished(page, /^Finished: The file says what you asked$/);
    expect(readFileSync(out, 'utf8')).toBe('hello from the form\n');
    const trajectory = page.getByRole('list', { name: 'Trajectory' });
    await expect.poll(() => trajectory.getByRole('listitem').count()).toBe(6);
    expect(await trajectory.locator('strong').last().textContent()).toBe('what you asked');
    // The command's result in words, not its JSON; the detail lays out its output.
    const ran = trajectory.getByRole('listitem').filter({ hasText: 'approved by you' });
    expect(await ran.textContent()).toMatch(/Result: exit 0 · \d+ ms · no output/);
    expect(await trajectory.textContent()).not.toContain('exit_code');
    await ran.click();
    const detail = page.getByRole('dialog', { name: /Step 4/ });
    await detail.getByText('No output.').waitFor();
    await page.keyboard.press('Escape');
    // The host's steps carry a screenshot of the real desktop.
    const first = trajectory.getByRole('img').first();
    await expect.poll(() => first.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1280);
    model.assertDone();
  });

  it('rejects a held command with a note: it never runs and the agent is told', async () => {
    const out = join(e2e.work, 'rejected.txt');
    const { page, model } = await open({
      name: 'rejection',
      steps: [
        hostTo('ShellAgent', 'write the file'),
        shell(`echo nope > ${out}`),
        { ...shell('', 'FAIL', { Comment: 'the user said no' }), expect: { contains: ['Rejected by the user: not today'] } },
        host({ Status: 'FAIL', Comment: 'You rejected the command' }),
      ],
    });
    await sendRequest(page, 'write the other file');
    const card = page.getByRole('region', { name: 'Approve this action?' });
    await card.waitFor({ timeout: 30_000 });
    await card.getByRole('textbox', { name: 'Note for the agent (optional)' }).fill('not today');
    await page.getByRole('button', { name: 'Reject' }).click();
    await finished(page, /^Failed/);
    await new Promise((done) => setTimeout(done, 300));
    expect(existsSync(out)).toBe(false);
    model.assertDone();
  });

  it('an agent form: created, filled, its Button pressed, updated and closed; the agent gets the events', async () => {
    const form = (extra: Record<string, unknown> = {}) => ({
      schema: { type: 'object', title: 'Trip details', properties: { city: { type: 'string', title: 'City' }, ...extra } },
      uischema: {
        type: 'VerticalLayout',
        elements: [
          { type: 'Control', scope: '#/properties/city' },
          ...(Object.keys(extra).length ? [{ type: 'Control', scope: '#/properties/nights' }] : []),
          { type: 'Button', label: 'Search', props: { action: 'search' } },
        ],
      },
    });
    const { page, model } = await open({
      name: 'agent form',
      steps: [
        hostTo('ShellAgent', 'ask for the trip details'),
        shell('', 'PENDING', { Form: form() }),
        {
          ...shell('', 'PENDING', { Form: form({ nights: { type: 'integer', title: 'Nights' } }) }),
          expect: { contains: ["Form submitted with 'search'", 'Lisbon'] },
        },
        { ...shell('', 'FINISH', { Comment: 'got it' }), expect: { contains: ['"nights":3'] } },
        host({ Status: 'FINISH', Comment: 'Trip noted' }),
      ],
    });
    await sendRequest(page, 'plan my trip');
    const card = page.getByRole('region', { name: 'Trip details' });
    await card.waitFor({ timeout: 30_000 });
    await card.getByRole('textbox', { name: 'City' }).pressSequentially('Lisbon', { delay: 20 });
    await card.getByRole('button', { name: 'Search' }).click();

    // The agent updates its form: a new field appears, the city typed before is kept.
    const nights = card.getByRole('spinbutton', { name: 'Nights' });
    await nights.waitFor({ timeout: 30_000 });
    expect(await card.getByRole('textbox', { name: 'City' }).inputValue()).toBe('Lisbon');
    await nights.fill('3');
    await card.getByRole('button', { name: 'Search' }).click();

    await finished(page, /^Finished/);
    await card.getByText('Closed').waitFor();
    expect(await card.getByRole('textbox', { name: 'City' }).isDisabled()).toBe(true);
    model.assertDone();
  });

  it('a step asking questions and showing a form: both are shown, questions first, and the agent gets both', async () => {
    const form = {
      schema: { type: 'object', title: 'Trip details', properties: { city: { type: 'string', title: 'City' } } },
      uischema: {
        type: 'VerticalLayout',
        elements: [
          { type: 'Control', scope: '#/properties/city' },
          { type: 'Button', label: 'Search', props: { action: 'search' } },
        ],
      },
    };
    const { page, model } = await open({
      name: 'questions and a form',
      steps: [
        hostTo('ShellAgent', 'ask for the trip details'),
        shell('', 'PENDING', { Questions: ['Who is travelling?'], Form: form }),
        {
          ...shell('', 'FINISH', { Comment: 'got it' }),
          expect: { contains: ['Q: "Who is travelling?" A: Ana and Rui', "Form submitted with 'search'", 'Lisbon'] },
        },
        host({ Status: 'FINISH', Comment: 'Trip noted' }),
      ],
    });
    await sendRequest(page, 'plan a trip for us');
    const requests = page.getByRole('complementary', { name: 'Agent requests' });
    const questions = requests.getByRole('region', { name: 'A question from the agent' });
    const card = requests.getByRole('region', { name: 'Trip details' });
    await card.waitFor({ timeout: 30_000 });
    await questions.waitFor({ timeout: 30_000 });
    // The questions come above the form.
    const [questionsBox, cardBox] = [await questions.boundingBox(), await card.boundingBox()];
    expect(questionsBox && cardBox && questionsBox.y + questionsBox.height <= cardBox.y).toBe(true);

    // Either can come first: the form's button pressed before the questions are answered is kept.
    await card.getByRole('textbox', { name: 'City' }).pressSequentially('Lisbon', { delay: 20 });
    await card.getByRole('button', { name: 'Search' }).click();
    await questions.getByRole('textbox', { name: 'Who is travelling?' }).fill('Ana and Rui');
    await questions.getByRole('button', { name: 'Submit answers' }).click();

    await finished(page, /^Finished/);
    await card.getByText('Closed').waitFor();
    expect(await questions.count()).toBe(0);
    model.assertDone();
  });
});

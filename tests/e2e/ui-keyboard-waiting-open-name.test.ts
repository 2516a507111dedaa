// Found walking the UI with a screen reader: the button on "<session> is waiting for you" was named
// "Open" and nothing more; with two such alerts, two buttons said the same. It names the session it opens.
import { describe, expect, it } from 'vitest';
import { makeSession, makeStep } from '../support/ui-fixtures';
import { uiPerTest } from '../support/ui-page';

const REPORT = makeSession('report', { title: 'Write the report', request: 'write the report', status: 'running', createdAt: 1, updatedAt: 1 });
const UNTITLED = makeSession('untitled', { title: '', request: 'tidy the desktop', status: 'running', createdAt: 2, updatedAt: 2 });

const fresh = uiPerTest({
  prepare: (host) => {
    host.addSession(REPORT, [makeStep(REPORT.id, 0)]);
    host.addSession(UNTITLED, [makeStep(UNTITLED.id, 0)]);
  },
});

describe('the "is waiting for you" alert names the session its Open button opens (fake host)', () => {
  it('"Open Write the report", and Enter on it opens that session with the focus on its question', async () => {
    const { page } = fresh.ui;
    fresh.host.requestInteraction({ kind: 'questions', id: 'q1', sessionId: REPORT.id, agent: 'HostAgent', questions: ['Which folder?'] });
    fresh.host.requestInteraction({ kind: 'questions', id: 'q2', sessionId: UNTITLED.id, agent: 'HostAgent', questions: ['Which files?'] });
    const open = page.getByRole('button', { name: 'Open Write the report', exact: true });
    await open.waitFor();
    await page.getByRole('button', { name: /^Open / }).nth(1).waitFor();
    // A session without a title is named as its alert names it.
    expect(await page.getByRole('button', { name: 'Open Another session', exact: true }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Open', exact: true }).count()).toBe(0);
    // What the button shows stays "Open" (the name starts with it, for speech input).
    expect(await open.textContent()).toBe('Open');
    await open.focus();
    await page.keyboard.press('Enter');
    await fresh.host.waitForCommand('session.open', (command) => command.sessionId === REPORT.id);
    await expect.poll(() => page.evaluate("document.activeElement?.closest('[data-waiting-card]')?.textContent ?? ''")).toMatch(/Which folder\?/);
    expect(fresh.ui.problems).toEqual([]);
  });
});

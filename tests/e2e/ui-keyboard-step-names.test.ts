// Found walking the trajectory with a screen reader: a step row that takes the focus was read out whole
// (thought, action, result, tokens and cost). It has a short name of its own: its number, agent, action,
// status and why it did not run, if it did not; what it shows is unchanged.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeSession, makeStep } from '../support/ui-fixtures';
import { uiPerTest } from '../support/ui-page';

const REPORT = makeSession('report', { title: 'Write the report', request: 'write the report', status: 'finished', result: 'Done', createdAt: 1, updatedAt: 1 });
const LONG_ACTION = `Type '${'a very long paragraph '.repeat(10).trim()}' at (200, 300)`;

const fresh = uiPerTest({
  prepare: (host) =>
    host.addSession(REPORT, [
      makeStep(REPORT.id, 0, { target: null, actionText: "Click on 'Save' at (10, 20)", status: 'FINISH', result: 'Saved.' }),
      makeStep(REPORT.id, 1, { status: 'ERROR', error: 'not run', notRun: 'taken-over' }),
      makeStep(REPORT.id, 2, { actionText: LONG_ACTION }),
    ]),
});

function focusedName(page: Page): Promise<string | null> {
  return page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label') ?? null");
}

describe('trajectory rows have short names of their own (fake host)', () => {
  it('names each step by number, agent, action, status and not-run tag, and keeps what it shows', async () => {
    const { page } = fresh.ui;
    await page.getByRole('link', { name: /Write the report/ }).click();
    const list = page.getByRole('list', { name: 'Trajectory' });
    await expect.poll(() => list.getByRole('listitem').count()).toBe(3);
    expect(await list.getByRole('listitem', { name: "Step 1, AppAgent, Click on 'Save' at (10, 20), finish", exact: true }).count()).toBe(1);
    expect(
      await list.getByRole('listitem', { name: "Step 2, AppAgent · Text Editor, Type 'paragraph 2' at (200, 300), error, Not run: you had the mouse", exact: true }).count(),
    ).toBe(1);
    // A long action is cut short in the name (the row shows it whole).
    const third = list.getByRole('listitem', { name: /^Step 3, AppAgent · Text Editor, Type 'a very long/ });
    expect(await third.count()).toBe(1);
    const name = (await third.getAttribute('aria-label')) ?? '';
    expect(name.length).toBeLessThan(140);
    expect(name).toMatch(/…, continue$/);
    expect(await third.textContent()).toContain(LONG_ACTION);
    // The row still shows its thought, result and usage.
    expect(await list.getByRole('listitem').nth(0).textContent()).toMatch(/Thought: Step 1: type the next paragraph\..*Saved\./);

    // The keyboard's row is the named one.
    await page.keyboard.press('t');
    await page.keyboard.press('Home');
    await expect.poll(() => focusedName(page)).toBe("Step 1, AppAgent, Click on 'Save' at (10, 20), finish");
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => focusedName(page)).toBe("Step 2, AppAgent · Text Editor, Type 'paragraph 2' at (200, 300), error, Not run: you had the mouse");
    expect(fresh.ui.problems).toEqual([]);
  });
});

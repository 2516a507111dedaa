// The blackboard drawer's trajectory records: a HostAgent step has no sub-task, and its record says
// nothing of one, rather than "Subtask: null".
import { describe, expect, it } from 'vitest';
import { makeSession, makeStep } from '../support/ui-fixtures';
import { uiPerTest } from '../support/ui-page';

const REPORT = makeSession('report', { title: 'Write the report', request: 'write the report', status: 'finished', result: 'Done', createdAt: 1, updatedAt: 1 });

const fresh = uiPerTest({
  prepare: (host) => {
    const session = host.addSession(REPORT, [makeStep(REPORT.id, 0, { agent: 'HostAgent', subtask: null }), makeStep(REPORT.id, 1)]);
    session.blackboard.trajectories.push(
      { Step: 1, Agent: 'HostAgent', Subtask: null, Action: 'No action', Status: 'CONTINUE', Result: null, Comment: 'Handing over to the editor' },
      { Step: 2, Agent: 'AppAgent (Text Editor)', Subtask: 'Write the report', Action: "Type 'paragraph 2'", Status: 'CONTINUE', Result: 'typed', Comment: '' },
    );
  },
});

describe('the blackboard drawer (fake host)', () => {
  it('shows a record without a sub-task with no "Subtask: null" line, and a sub-task where there is one', async () => {
    const { page } = fresh.ui;
    await page.getByRole('link', { name: /Write the report/ }).click();
    await page.getByRole('button', { name: 'Blackboard' }).click();
    const records = page.getByRole('dialog', { name: 'Blackboard' }).getByRole('list', { name: 'Trajectory records' }).getByRole('listitem');
    await expect.poll(() => records.count()).toBe(2);
    const host = (await records.nth(0).textContent()) ?? '';
    expect(host).toContain('Agent: HostAgent');
    expect(host).toContain('Comment: Handing over to the editor');
    expect(host).not.toContain('null');
    expect(await records.nth(1).textContent()).toContain('Subtask: Write the report');
    expect(fresh.ui.problems).toEqual([]);
  });
});

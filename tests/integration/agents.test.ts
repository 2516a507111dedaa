import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Interaction } from '../../src-main/protocol';
import { followUp, replies, runRequest, type HostHarness } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

const { app, hostTo, host } = replies;
const hostFinish = (comment = 'done') => host({ Status: 'FINISH', Comment: comment });
const shell = (command: string, status = 'CONTINUE') => app({ Function: 'execute_command', Args: { command }, Status: status });

const startHarness = harnessPerTest();

function workDir(): string {
  return mkdtempSync(join(tmpdir(), 'deskhand-agents-'));
}

/** Answers the broker's interactions from the test, as the UI would, once they are requested. */
async function waitForInteraction(h: HostHarness, kind: Interaction['kind']): Promise<Interaction> {
  for (let i = 0; i < 200; i++) {
    const event = h.events.find((candidate) => candidate.kind === 'interaction.requested' && candidate.interaction.kind === kind);
    if (event?.kind === 'interaction.requested') return event.interaction;
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error(`no ${kind} interaction was requested`);
}

describe('HostAgent with an AppAgent and the ShellAgent', () => {
  it('splits a request into a window sub-task and a shell sub-task, then finishes', async () => {
    const dir = workDir();
    const harness = await startHarness(
      {
        name: 'two sub-tasks',
        steps: [
          hostTo('0x200002', 'type the title into the editor'),
          app({ Function: 'type_text', Args: { text: 'Title' }, Status: 'CONTINUE', SaveScreenshot: { save: true, reason: 'the editor with the title' } }),
          app({ Function: '', Status: 'FINISH', Comment: 'typed the title' }),
          {
            ...hostTo('ShellAgent', 'write the date file'),
            expect: { contains: ['type the title into the editor -> AppAgent (notes.txt - Mousepad): FINISH, typed the title', '[Blackboard:]', 'Trajectory'] },
          },
          { ...shell(`date +%F > ${dir}/date.txt`), expect: { contains: ['write the date file', 'execute_command('] } },
          shell('', 'FINISH'),
          {
            ...hostFinish('both done'),
            expect: { contains: ['write the date file -> ShellAgent: FINISH', 'typed the title', 'the editor with the title'] },
          },
        ],
      },
      { config: { safety: { confirmation: 'never' } } },
    );
    const { outcome, steps, sessionId } = await runRequest(harness.host, 'title the note, then save the date');
    expect(outcome).toEqual({ status: 'finished', result: 'both done' });
    expect(steps.map((step) => step.agent)).toEqual(['HostAgent', 'AppAgent', 'AppAgent', 'HostAgent', 'ShellAgent', 'ShellAgent', 'HostAgent']);
    expect(steps[4]?.screenshot).toBeNull();
    expect(readFileSync(join(dir, 'date.txt'), 'utf8')).toMatch(/^\d{4}-\d{2}-\d{2}\n$/);
    harness.model.assertDone();
    const board = await harness.host.endpoint.handle({ type: 'blackboard.get', id: 'b', sessionId });
    expect(board).toMatchObject({ ok: true, result: { requests: ['title the note, then save the date'], screenshots: [{ reason: 'the editor with the title' }] } });
  });

  it('says in the step and to the HostAgent that an action given with FINISH was not run, and runs nothing', async () => {
    const harness = await startHarness({
      name: 'finish with an action',
      steps: [
        hostTo('0x200002', 'save the note'),
        app({ Function: 'hotkey', Args: { keys: ['ctrl', 's'] }, Status: 'FINISH', Comment: 'saved the note' }),
        { ...hostFinish('done'), expect: { contains: ['(Not run: hotkey, given with FINISH, which takes no action.)'] } },
      ],
    });
    const { steps } = await runRequest(harness.host, 'save the note');
    expect(steps[1]).toMatchObject({ status: 'FINISH', result: 'saved the note (Not run: hotkey, given with FINISH, which takes no action.)' });
    // The window is brought forward for the sub-task; no key is pressed.
    expect(harness.deviceActions().map((action) => action.tool)).not.toContain('hotkey');
    harness.model.assertDone();
  });

  it('the ShellAgent (no action sequences) runs one action given in Actions, and says why it refuses two', async () => {
    const dir = workDir();
    const inActions = (...commands: string[]) =>
      app({ Function: '', Args: {}, Status: 'CONTINUE', Actions: commands.map((command) => ({ Function: 'execute_command', Args: { command } })) });
    const harness = await startHarness(
      { name: 'actions without sequences', steps: [inActions(`touch ${dir}/one`), inActions(`touch ${dir}/two`, `touch ${dir}/three`), shell('', 'FINISH')] },
      { config: { safety: { confirmation: 'never' } } },
    );
    const { steps } = await runRequest(harness.host, 'make the files', 'shell');
    expect(existsSync(join(dir, 'one'))).toBe(true);
    expect(steps[1]?.error).toMatch(/Function is empty \(action sequences are off: give one action in Function and Args\)/);
    expect(existsSync(join(dir, 'two')) || existsSync(join(dir, 'three'))).toBe(false);
  });

  it('refuses a reply giving both Function and Actions that differ, running neither; a Function that repeats the first action runs', async () => {
    const dir = workDir();
    const touch = (name: string) => ({ Function: 'execute_command', Args: { command: `touch ${dir}/${name}` } });
    const harness = await startHarness(
      {
        name: 'function beside actions',
        steps: [
          app({ ...touch('function'), Status: 'CONTINUE', Actions: [touch('action')] }),
          app({ ...touch('same'), Status: 'CONTINUE', Actions: [touch('same')] }),
          shell('', 'FINISH'),
        ],
      },
      { config: { safety: { confirmation: 'never' } } },
    );
    const { steps } = await runRequest(harness.host, 'make the files', 'shell');
    expect(steps[0]?.error).toMatch(/gives both Function \(execute_command\) and Actions \(first: execute_command\): give one action in Function and Args, or the actions in Actions/);
    expect(existsSync(join(dir, 'function')) || existsSync(join(dir, 'action'))).toBe(false);
    expect(existsSync(join(dir, 'same'))).toBe(true);
  });

  it("hands the HostAgent's notes (Message) with the sub-task, and only with it", async () => {
    const harness = await startHarness(
      {
        name: 'notes',
        steps: [
          hostTo('0x200002', 'type the invoice number', { Message: ['the invoice number is 4711'] }),
          {
            ...app({ Function: '', Status: 'FINISH', Comment: 'typed' }),
            expect: { contains: ['## Notes from the HostAgent\n<data name="notes">\n- the invoice number is 4711\n</data>'] },
          },
          hostTo('ShellAgent', 'list the rows', { Message: ['the rows come from seq', 'there are 40 of them'] }),
          {
            ...shell(`seq 1 40 | sed 's/^/row /'; echo 'sed: a warning' >&2`),
            expect: { contains: ['<data name="notes">\n- the rows come from seq\n- there are 40 of them\n</data>'], notContains: ['4711'] },
          },
          // The whole output of the last command, stdout and then stderr, reaches the next step.
          {
            ...app({ Function: '', Status: 'FINISH', Comment: '40 rows' }),
            expect: { contains: ["-> ok, exit code 0\nstdout:\nrow 1\nrow 2\n", '\nrow 40\nstderr:\nsed: a warning\n'] },
          },
          hostTo('ShellAgent', 'count the rows'),
          { ...app({ Function: '', Status: 'FINISH', Comment: '40' }), expect: { notContains: ['Notes from the HostAgent', 'the rows come from seq'] } },
          hostFinish(),
        ],
      },
      { config: { safety: { confirmation: 'never' } } },
    );
    const { outcome } = await runRequest(harness.host, 'type the invoice number, then list the rows');
    expect(outcome).toEqual({ status: 'finished', result: 'done' });
    harness.model.assertDone();
  });

  it('refuses a window id that is not listed, and a ControlText that names nothing', async () => {
    const harness = await startHarness({
      name: 'bad target',
      steps: [hostTo('0xdeadbeef', 'x'), { ...hostTo('Photoshop', 'x'), expect: { contains: ["ControlLabel '0xdeadbeef' is not a listed window id"] } }, hostFinish()],
    });
    const { steps } = await runRequest(harness.host, 'do it');
    expect(steps[0]?.error).toMatch(/not a listed window id or agent; listed: 0x100001, 0x200002, ShellAgent/);
    expect(steps[1]?.error).toMatch(/no listed window or agent is named 'Photoshop'/);
    expect(harness.deviceActions()).toEqual([]);
  });

  it('opens an application (AppsToOpen) and hands the sub-task to its new window', async () => {
    const harness = await startHarness({
      name: 'open app',
      steps: [
        host({ Status: 'CONTINUE', 'Current Sub-Task': 'write hello', AppsToOpen: { APP: 'gedit', file_path: '' } }),
        { ...app({ Function: '', Status: 'FINISH', Comment: 'wrote it' }), expect: { contains: ['gedit window'] } },
        hostFinish(),
      ],
    });
    const { steps } = await runRequest(harness.host, 'write hello in gedit');
    expect(steps[0]).toMatchObject({ status: 'CONTINUE', result: 'Opened gedit window' });
    expect(steps[1]).toMatchObject({ agent: 'AppAgent', target: 'gedit window' });
    expect(harness.deviceActions()[0]).toEqual({ tool: 'launch_app', args: { name: 'gedit' } });
  });
});

describe('questions and approvals', () => {
  it('PENDING: the answer reaches the next prompt and the Q&A store, and later sessions', async () => {
    const harness = await startHarness({
      name: 'pending',
      steps: [
        host({ Status: 'PENDING', Questions: ['Which file?'] }),
        { ...hostFinish(), expect: { contains: ['Q: "Which file?" A: report.pdf'] } },
        { ...hostFinish(), expect: { contains: ['Q: "Which file?" A: report.pdf'] } },
      ],
    });
    const start = await harness.host.endpoint.handle({ type: 'session.start', id: 's', request: 'send the file' });
    const question = await waitForInteraction(harness, 'questions');
    expect(question).toMatchObject({ kind: 'questions', questions: ['Which file?'] });
    expect(harness.host.store.getSession((start as { result: { session: { id: string } } }).result.session.id)?.status).toBe('waiting');
    const wrong = await harness.host.endpoint.handle({ type: 'interaction.answer', id: 'a0', sessionId: question.sessionId, interactionId: question.id, answers: ['', ''] });
    expect(wrong).toMatchObject({ ok: false, error: { code: 'bad_message', message: 'answer all 1 question(s)' } });
    const answer = await harness.host.endpoint.handle({ type: 'interaction.answer', id: 'a1', sessionId: question.sessionId, interactionId: question.id, answers: ['report.pdf'] });
    expect(answer).toMatchObject({ ok: true });
    expect(await harness.host.sessions.running).toMatchObject({ status: 'finished' });
    const again = await harness.host.endpoint.handle({ type: 'interaction.answer', id: 'a2', sessionId: question.sessionId, interactionId: question.id, answers: ['x'] });
    expect(again).toMatchObject({ ok: false, error: { code: 'conflict' } });
    // A new session carries the answer over from the Q&A store.
    await runRequest(harness.host, 'another request');
    harness.model.assertDone();
  });

  it('CONFIRM approved: the held command runs after approval, and the decision is recorded', async () => {
    const dir = workDir();
    const harness = await startHarness(
      { name: 'confirm approved', steps: [shell(`echo approved > ${dir}/effect.txt`), shell('', 'FINISH')] },
      { autoResponder: (interaction) => (interaction.kind === 'confirm' ? { kind: 'decision', approved: true, note: null } : null) },
    );
    const { outcome, steps, sessionId } = await runRequest(harness.host, 'write the file', 'shell');
    expect(outcome.status).toBe('finished');
    expect(readFileSync(join(dir, 'effect.txt'), 'utf8')).toBe('approved\n');
    expect(steps.map((step) => `${step.status}:${step.approvedBy}`)).toEqual(['CONFIRM:null', 'CONTINUE:user', 'FINISH:null']);
    expect(steps[0]?.result).toMatch(/Held for your approval: rule: shell command/);
    const audit = harness.host.audit.list(sessionId);
    expect(audit).toMatchObject([{ tool: 'execute_command', decision: 'approved', approvedBy: 'user', status: 'success' }]);
  });

  it('CONFIRM rejected: the command never runs, the agent is told, the audit shows it', async () => {
    const dir = workDir();
    const harness = await startHarness({
      name: 'confirm rejected',
      steps: [
        shell(`echo rejected > ${dir}/effect.txt`),
        { ...shell('', 'FAIL'), expect: { contains: ['Rejected by the user: not that file; the action did not run'] } },
      ],
    });
    const run = runRequest(harness.host, 'write the file', 'shell');
    const confirm = await waitForInteraction(harness, 'confirm');
    expect(confirm).toMatchObject({ kind: 'confirm', reasons: ['rule: shell command'], actions: [{ function: 'execute_command' }] });
    await harness.host.endpoint.handle({ type: 'interaction.decide', id: 'd', sessionId: confirm.sessionId, interactionId: confirm.id, approved: false, note: 'not that file' });
    const { outcome, sessionId, steps } = await run;
    expect(outcome.status).toBe('failed');
    // The decision's step is stored as rejected: the trajectory tags it "Rejected by you".
    expect(steps.map((step) => `${step.status}:${step.notRun}`)).toEqual(['CONFIRM:null', 'CONTINUE:rejected', 'FAIL:null']);
    expect(existsSync(join(dir, 'effect.txt'))).toBe(false);
    expect(harness.deviceActions()).toEqual([]);
    expect(harness.host.audit.list(sessionId)).toMatchObject([{ tool: 'execute_command', decision: 'rejected', status: 'skipped' }]);
  });

  it("CONFIRM rejected for the HostAgent: its next prompt says so, with the user's note", async () => {
    const harness = await startHarness(
      {
        name: 'host rejected',
        steps: [
          host({ Status: 'CONTINUE', 'Current Sub-Task': 'write hello', AppsToOpen: { APP: 'gedit', file_path: '' } }),
          { ...hostFinish(), expect: { contains: ['Rejected by the user: use nano instead; the action did not run'] } },
        ],
      },
      {
        config: { safety: { confirmation: 'always' } },
        autoResponder: (interaction) => (interaction.kind === 'confirm' ? { kind: 'decision', approved: false, note: 'use nano instead' } : null),
      },
    );
    await runRequest(harness.host, 'write hello');
    harness.model.assertDone();
    expect(harness.deviceActions()).toEqual([]);
  });

  it('a model that says CONTINUE cannot skip the policy: a shell command is still held', async () => {
    const dir = workDir();
    const harness = await startHarness({ name: 'policy', steps: [shell(`touch ${dir}/sneaky`)] });
    const run = runRequest(harness.host, 'touch it', 'shell');
    const confirm = await waitForInteraction(harness, 'confirm');
    await harness.host.endpoint.handle({ type: 'session.stop', id: 'stop', sessionId: confirm.sessionId });
    expect((await run).outcome.status).toBe('stopped');
    expect(existsSync(join(dir, 'sneaky'))).toBe(false);
    expect(harness.events.some((event) => event.kind === 'interaction.resolved' && event.outcome === 'cancelled')).toBe(true);
  });

  it('the deny list refuses a command even with confirmation off', async () => {
    const harness = await startHarness(
      { name: 'deny', steps: [shell('rm -rf / '), shell('', 'FINISH')] },
      { config: { safety: { confirmation: 'never' } } },
    );
    const { steps } = await runRequest(harness.host, 'clean up', 'shell');
    expect(steps[0]).toMatchObject({ status: 'ERROR', notRun: 'refused' });
    expect(steps[0]?.error).toMatch(/refused by the safety policy: denied/);
    expect(harness.deviceActions()).toEqual([]);
  });
});

describe('rounds and history', () => {
  it('a follow-up round sees the first round\'s blackboard', async () => {
    const harness = await startHarness({
      name: 'follow-up',
      steps: [
        hostTo('xterm', 'note the number'),
        app({ Function: '', Status: 'FINISH', Comment: 'the number is 42' }),
        hostFinish('42'),
        { ...hostFinish('emailed'), expect: { contains: ['1. find the number', '2. now email it to Ana', 'the number is 42'] } },
      ],
    });
    const { sessionId } = await runRequest(harness.host, 'find the number');
    const second = await followUp(harness.host, sessionId, 'now email it to Ana');
    expect(second.outcome).toEqual({ status: 'finished', result: 'emailed' });
    expect(second.steps.at(-1)).toMatchObject({ round: 1 });
    expect(harness.host.store.getSession(sessionId)).toMatchObject({ roundCount: 2, stepCount: 4 });
  });

  it('feeds back an action repeated without effect', async () => {
    const click = app({ Function: 'click', Args: { x: 10, y: 10 }, Status: 'CONTINUE' });
    const harness = await startHarness({
      name: 'repeat',
      steps: [hostTo('xterm', 'click'), click, click, { ...app({ Function: '', Status: 'FAIL' }), expect: { contains: ['You have done the same action 2 times in a row'] } }, hostFinish()],
    });
    await runRequest(harness.host, 'click');
    harness.model.assertDone();
  });

  it('keeps the prompt bounded: step 40 is not much bigger than step 5', async () => {
    const wait = app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE', Comment: 'waiting a little longer for the window to settle' });
    const harness = await startHarness(
      { name: 'long', steps: [hostTo('xterm', 'wait'), ...Array.from({ length: 40 }, () => wait)] },
      { config: { limits: { maxStepsPerRound: 41 } } },
    );
    await runRequest(harness.host, 'wait a lot');
    const sizes = harness.model.requests.map((request) => request.text.length);
    expect(sizes[40]! / sizes[5]!).toBeLessThan(1.5);
    expect(harness.model.requests[40]?.text).toContain('earlier steps not shown');
  });

  it('adds up tokens and cost per step, round and session', async () => {
    const harness = await startHarness({ name: 'cost', steps: [hostTo('xterm', 'wait'), app({ Function: '', Status: 'FINISH' }), hostFinish()] }, { prices: { input: 2.5, output: 10 } });
    const { steps, sessionId } = await runRequest(harness.host, 'cost');
    const session = harness.host.store.getSession(sessionId);
    const prompt = steps.reduce((sum, step) => sum + step.tokens.prompt, 0);
    const completion = steps.reduce((sum, step) => sum + step.tokens.completion, 0);
    expect(session?.tokens).toEqual({ prompt, completion });
    expect(prompt).toBeGreaterThan(0);
    expect(steps[0]?.costUsd).toBeCloseTo((steps[0]!.tokens.prompt * 2.5 + steps[0]!.tokens.completion * 10) / 1e6, 10);
    expect(session?.costUsd).toBeCloseTo(steps.reduce((sum, step) => sum + (step.costUsd ?? 0), 0), 10);
  });

  it('runs an action sequence in one step and skips the rest after a failure', async () => {
    const harness = await startHarness({
      name: 'sequence',
      steps: [
        hostTo('xterm', 'type and save'),
        app({
          Function: '',
          Status: 'CONTINUE',
          Actions: [
            { Function: 'click', Args: { x: 5, y: 5 } },
            { Function: 'type_text', Args: { text: 'hello' } },
            { Function: 'hotkey', Args: { keys: ['ctrl', 's'] } },
          ],
        }),
        app({ Function: '', Status: 'FINISH' }),
        hostFinish(),
      ],
    }, { deviceEnv: { DESKHAND_FAKE_DEVICE_FAIL_ON: 'type_text' } });
    const { steps, sessionId } = await runRequest(harness.host, 'type and save');
    expect(steps[1]).toMatchObject({ status: 'ERROR', actionText: "Click at (5, 5)\nType 'hello'\nPress ctrl+s" });
    expect(steps[1]?.error).toMatch(/type_text failed on purpose \(1 later action\(s\) skipped\)/);
    expect(harness.deviceActions().map((action) => action.tool)).toEqual(['focus_window', 'click']);
    expect(harness.host.audit.list(sessionId).map((row) => `${row.tool}:${row.status}`)).toEqual([
      'focus_window:success',
      'click:success',
      'type_text:failure',
      'hotkey:skipped',
    ]);
  });

  it('puts the user\'s own documents that match the request into the prompt', async () => {
    const dataDir = workDir();
    mkdirSync(join(dataDir, 'docs'));
    writeFileSync(join(dataDir, 'docs', 'expenses.md'), 'Expense reports go to finance@example.com before Friday.\n\nUnrelated paragraph about lunch.');
    const harness = await startHarness({ name: 'docs', steps: [{ ...hostFinish(), expect: { contains: ['finance@example.com'], notContains: ['about lunch'] } }] }, { dataDir });
    await runRequest(harness.host, 'where do expense reports go');
    harness.model.assertDone();
  });

  it('starts when a file in docs/ cannot be read (a broken link), and uses the others', async () => {
    const dataDir = workDir();
    mkdirSync(join(dataDir, 'docs'));
    writeFileSync(join(dataDir, 'docs', 'expenses.md'), 'Expense reports go to finance@example.com before Friday.');
    symlinkSync(join(dataDir, 'docs', 'gone.md'), join(dataDir, 'docs', 'notes.md'));
    const harness = await startHarness({ name: 'broken doc', steps: [{ ...hostFinish(), expect: { contains: ['finance@example.com'] } }] }, { dataDir });
    await runRequest(harness.host, 'where do expense reports go');
    harness.model.assertDone();
  });
});

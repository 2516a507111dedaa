import { describe, expect, it } from 'vitest';
import { AppAgent, HostAgent, ShellAgent } from '../../src-main/agents/agents';
import type { BasicAgent } from '../../src-main/agents/basic-agent';
import type { AgentRuntime } from '../../src-main/agents/runtime';
import { outcomeOfResults } from '../../src-main/agents/step-keys';
import { PAUSED_BEFORE_ACTING } from '../../src-main/agents/strategies/act';
import type { CommandResult } from '../../src-main/commands/command';
import { POINTER_MOVED_META } from '../../src-main/device/contract';
import { SafetyPolicy } from '../../src-main/commands/safety-policy';
import { SafetyConfig } from '../../src-main/host/config';
import { agentHarness, appReply, hostReply, WINDOWS, type AgentHarness } from './agents-review-harness';

const editor = WINDOWS[1] as (typeof WINDOWS)[number];

/** Runs the agent's current state once, as the round loop does. */
async function tick(agent: BasicAgent, runtime: AgentRuntime): Promise<void> {
  await agent.states.get(agent.status).handle(agent, runtime);
}

describe('AppAgent: an action sequence with one sensitive action', () => {
  const sequence = appReply({
    Actions: [
      { Function: 'click', Args: { x: 10, y: 10 }, ControlText: 'To' },
      { Function: 'type_text', Args: { text: 'hello' } },
      { Function: 'click', Args: { x: 50, y: 50 }, ControlText: 'Send' },
    ],
  });

  it('holds the whole sequence before anything runs, and runs none of it when rejected', async () => {
    const h = agentHarness({ replies: [sequence] });
    const agent = new AppAgent(editor, null);
    await tick(agent, h.runtime);
    expect(agent.status).toBe('CONFIRM');
    expect(h.actions.map((action) => action.tool)).toEqual(['focus_window']);
    await tick(agent, h.runtime);
    expect(h.asked[0]).toMatchObject({ kind: 'confirm', reasons: ["rule: control text 'Send'"] });
    expect(h.actions.map((action) => action.tool)).toEqual(['focus_window']);
    expect(h.steps.at(-1)).toMatchObject({ status: 'CONTINUE', result: expect.stringMatching(/^Rejected by the user/), notRun: 'rejected' });
    expect(h.audit.filter((row) => row.tool !== 'focus_window').map((row) => [row.tool, row.decision, row.status])).toEqual([
      ['click', 'rejected', 'skipped'],
      ['type_text', 'rejected', 'skipped'],
      ['click', 'rejected', 'skipped'],
    ]);
  });

  it('runs exactly the judged actions once approved, in order, after bringing its window back', async () => {
    const h = agentHarness({ replies: [sequence], answer: () => ({ kind: 'decision', approved: true, note: null }) });
    const agent = new AppAgent(editor, null);
    await tick(agent, h.runtime);
    await tick(agent, h.runtime);
    expect(h.actions.map((action) => action.tool)).toEqual(['focus_window', 'focus_window', 'click', 'type_text', 'click']);
    expect(h.steps.at(-1)).toMatchObject({ status: 'CONTINUE', approvedBy: 'user', notRun: null });
    expect(h.audit.filter((row) => row.tool !== 'focus_window').every((row) => row.decision === 'approved' && row.status === 'success')).toBe(true);
  });

  it('never runs the action of a reply that is still invalid after the bounded repair', async () => {
    const bad = appReply({ Function: 'click', Args: { x: 10 } });
    const h = agentHarness({ replies: [appReply({ Status: 'DONE' }), appReply({ Status: 'DONE' }), bad, bad, bad] });
    const agent = new AppAgent(editor, null);
    for (let i = 0; i < 3 && agent.status !== 'ERROR'; i++) await tick(agent, h.runtime);
    expect(agent.status).toBe('ERROR');
    expect(h.actions.map((action) => action.tool)).toEqual(['focus_window']);
    expect(h.steps.map((step) => step.status)).toEqual(['ERROR', 'ERROR', 'ERROR']);
    expect(h.steps.every((step) => step.error)).toBe(true);
  });
});

describe('a held action whose decision never came', () => {
  it('is audited as not run when the round ends, even after the question failed', async () => {
    const h = agentHarness({
      replies: [appReply({ Function: 'execute_command', Args: { command: 'ls' } })],
      // A responder that answers an approval with answers: no decision was made.
      answer: () => ({ kind: 'answers', answers: ['ok'] }),
    });
    const agent = new ShellAgent(null);
    agent.assign('list');
    await tick(agent, h.runtime);
    expect(agent.status).toBe('CONFIRM');
    await expect(tick(agent, h.runtime)).rejects.toThrow(/expected a decision/);
    // What the round loop does when it ends.
    agent.abandonHeld(h.runtime, 'not run: the round ended before it was decided');
    expect(h.actions).toEqual([]);
    expect(h.audit).toMatchObject([{ tool: 'execute_command', decision: 'rejected', status: 'skipped', error: 'not run: the round ended before it was decided' }]);
  });
});

describe('HostAgent: choosing whom to hand a sub-task to', () => {
  it('takes ControlText that names exactly one listed window, and refuses an unlisted id or an ambiguous name', async () => {
    const windows = [...WINDOWS, { ...editor, id: '0x300003', title: 'other.txt - Mousepad' }];
    const h = agentHarness({
      windows,
      replies: [
        hostReply({ 'Current Sub-Task': 'write', ControlLabel: '0x999999' }),
        hostReply({ 'Current Sub-Task': 'write', ControlText: 'mousepad' }),
        hostReply({ 'Current Sub-Task': 'write', ControlText: 'notes.txt - mousepad' }),
      ],
    });
    const host = new HostAgent();
    await tick(host, h.runtime);
    expect(h.steps[0]).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/'0x999999' is not a listed window id/) });
    expect(host.takeHandoff()).toBeNull();
    await tick(host, h.runtime);
    expect(h.steps[1]).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/names 2 windows/) });
    expect(host.takeHandoff()).toBeNull();
    await tick(host, h.runtime);
    expect(h.steps[2]).toMatchObject({ status: 'CONTINUE' });
    const picked = host.takeHandoff();
    expect(picked).toBeInstanceOf(AppAgent);
    expect((picked as AppAgent).window.id).toBe('0x200002');
    expect(h.actions).toEqual([]);
  });
});

describe('AppAgent: a window handed a second sub-task', () => {
  it('is named by its current title, not the one it had when its agent was made', async () => {
    const windows = WINDOWS.map((window) => ({ ...window }));
    const h = agentHarness({
      windows,
      replies: [
        hostReply({ 'Current Sub-Task': 'save the notes as report.txt', ControlLabel: '0x200002' }),
        appReply({ Status: 'FINISH', Comment: 'saved' }),
        hostReply({ 'Current Sub-Task': 'add a title line', ControlLabel: '0x200002' }),
        appReply({ Status: 'FINISH', Comment: 'added' }),
      ],
    });
    const host = new HostAgent();
    await tick(host, h.runtime);
    const first = host.takeHandoff() as AppAgent;
    expect(first.target).toBe('notes.txt - Mousepad');
    await tick(first, h.runtime);
    // Saved under another name: the window's title says so.
    windows[1] = { ...(windows[1] as (typeof WINDOWS)[number]), title: 'report.txt - Mousepad' };
    await tick(host, h.runtime);
    const second = host.takeHandoff() as AppAgent;
    expect(second).toBe(first);
    expect(second.target).toBe('report.txt - Mousepad');
    await tick(second, h.runtime);
    const step = h.steps.at(-1);
    expect(step).toMatchObject({ agent: 'AppAgent', subtask: 'add a title line', target: 'report.txt - Mousepad' });
    expect(step?.promptText).toContain('report.txt - Mousepad');
    expect(step?.promptText).not.toContain('notes.txt - Mousepad');
  });
});

describe("AppAgent: the user's note with a decision", () => {
  it('reaches the agent that held the action, approved or rejected, in its next prompt', async () => {
    for (const approved of [true, false]) {
      const note = approved ? 'fine, but save it as UTF-8 next time' : 'not Send: save it as a draft instead';
      const h = agentHarness({
        replies: [appReply({ Function: 'click', Args: { x: 50, y: 50 }, ControlText: 'Send' }), appReply({ Function: 'wait', Args: { seconds: 0 } })],
        answer: () => ({ kind: 'decision', approved, note }),
      });
      // The blackboard gets each step's trajectory record, as the session's commit does.
      const runtime: AgentRuntime = {
        ...h.runtime,
        commitStep: async (step, memory) => {
          const view = await h.runtime.commitStep(step, memory);
          if (memory.trajectory) h.runtime.blackboard.addTrajectory({ ...memory.trajectory, Step: view.index + 1 }, view.index);
          return view;
        },
      };
      const agent = new AppAgent(editor, null);
      agent.assign('send the notes');
      await tick(agent, runtime);
      expect(agent.status).toBe('CONFIRM');
      await tick(agent, runtime);
      await tick(agent, runtime);
      expect(h.steps.at(-1)?.promptText, approved ? 'approved' : 'rejected').toContain(note);
    }
  });
});

describe('AppAgent: a step that asks questions and shows a form', () => {
  it('once the questions are answered, the status says the agent waits on its form, not for answers already given', async () => {
    const h = agentHarness({ replies: [appReply({ Status: 'PENDING', Questions: ['Which folder?'], Form: { schema: { type: 'object', properties: { name: { type: 'string' } } } } })] });
    const statuses: string[] = [];
    let whileOnForm: string | undefined;
    const runtime: AgentRuntime = {
      ...h.runtime,
      setStatus: (status, detail) => void statuses.push(`${status}: ${detail}`),
      forms: {
        ...h.runtime.forms,
        waitForAction: () => {
          whileOnForm = statuses.at(-1);
          return Promise.resolve({ action: 'ok', data: { name: 'x' }, kept: { name: 'x' } });
        },
      },
    };
    const agent = new AppAgent(editor, null);
    await tick(agent, runtime);
    expect(agent.status).toBe('PENDING');
    await tick(agent, runtime);
    expect(h.asked[0]).toMatchObject({ kind: 'questions', questions: ['Which folder?'] });
    expect(statuses[0]).toBe('waiting: Waiting for your answers');
    expect(whileOnForm).toMatch(/^waiting: /);
    expect(whileOnForm).not.toContain('answers');
    expect(agent.status).toBe('CONTINUE');
  });
});

describe('a step whose action did not run says why, for the trajectory to tag it', () => {
  it('refused by the never-run rule: an ERROR step marked refused, nothing run', async () => {
    const h = agentHarness({ replies: [appReply({ Function: 'execute_command', Args: { command: 'rm -rf /' } })] });
    const agent = new ShellAgent(null);
    agent.assign('clean up');
    await tick(agent, h.runtime);
    expect(h.actions).toEqual([]);
    expect(h.steps).toMatchObject([{ status: 'ERROR', error: expect.stringMatching(/^refused by the safety policy/), notRun: 'refused', approvedBy: null }]);
  });

  it('approved, then refused by a never-run rule added while it waited: marked refused', async () => {
    let h: AgentHarness | null = null;
    h = agentHarness({
      replies: [appReply({ Function: 'execute_command', Args: { command: 'ls' } })],
      answer: () => {
        h?.runtime.gate.setPolicy(new SafetyPolicy(SafetyConfig.parse({ denyCommandPatterns: ['^ls'] })));
        return { kind: 'decision', approved: true, note: null };
      },
    });
    const agent = new ShellAgent(null);
    agent.assign('list');
    await tick(agent, h.runtime);
    expect(agent.status).toBe('CONFIRM');
    await tick(agent, h.runtime);
    expect(h.actions).toEqual([]);
    expect(h.steps.at(-1)).toMatchObject({ status: 'ERROR', approvedBy: 'user', notRun: 'refused', error: expect.stringMatching(/^not run: refused by the safety policy/) });
  });

  it('allowed, then refused or held by safety settings changed just before it ran: not run, the refusal marked', async () => {
    const shell = appReply({ Function: 'execute_command', Args: { command: 'ls' } });
    const allowAll = SafetyConfig.parse({ confirmAllShellCommands: false, sensitiveCommandPatterns: [] });
    for (const [changed, notRun, error] of [
      [SafetyConfig.parse({ confirmAllShellCommands: false, sensitiveCommandPatterns: [], denyCommandPatterns: ['^ls'] }), 'refused', /^not run: refused by the safety policy/],
      [SafetyConfig.parse({ confirmation: 'always' }), null, /^not run: this action now needs the user's approval/],
    ] as const) {
      const h = agentHarness({ replies: [shell] });
      h.runtime.gate.setPolicy(new SafetyPolicy(allowAll));
      const agent = new ShellAgent(null);
      agent.assign('list');
      // Read just before the action runs, after the step was judged.
      const isPaused = (): boolean => {
        h.runtime.gate.setPolicy(new SafetyPolicy(changed));
        return false;
      };
      await tick(agent, { ...h.runtime, isPaused });
      expect(h.actions).toEqual([]);
      expect(h.steps).toMatchObject([{ status: 'ERROR', error: expect.stringMatching(error), notRun, approvedBy: null }]);
    }
  });

  it('paused before it acted: marked paused, nothing run', async () => {
    const h = agentHarness({ replies: [appReply({ Function: 'click', Args: { x: 10, y: 10 }, ControlText: 'OK' })] });
    const agent = new AppAgent(editor, null);
    await tick(agent, { ...h.runtime, isPaused: () => true });
    expect(h.actions.map((action) => action.tool)).not.toContain('click');
    expect(h.steps).toMatchObject([{ status: 'CONTINUE', result: PAUSED_BEFORE_ACTING, notRun: 'paused' }]);
  });

  it('a step that ran, or failed trying, is not marked', async () => {
    const h = agentHarness({
      replies: [appReply({ Function: 'click', Args: { x: 10, y: 10 }, ControlText: 'OK' }), appReply({ Function: 'click', Args: { x: 20, y: 20 }, ControlText: 'OK' })],
      device: (tool, args) => (tool === 'click' && args.x === 20 ? { content: [{ type: 'text', text: 'no such point' }], isError: true } : null),
    });
    const agent = new AppAgent(editor, null);
    await tick(agent, h.runtime);
    await tick(agent, h.runtime);
    expect(h.steps.map((step) => [step.status, step.notRun])).toEqual([
      ['CONTINUE', null],
      ['ERROR', null],
    ]);
  });
});

/** The device's reply to an action it did not take: the user had moved the pointer. */
const POINTER_MOVED_REPLY = { content: [{ type: 'text' as const, text: 'the pointer moved' }], isError: true, _meta: { [POINTER_MOVED_META]: { pointer: { screen: { x: 150, y: 80 }, image: null } } } };

describe('a step none of whose action ran because the user had the mouse, or Stop came first, says so', () => {
  /** The user moves the pointer away from where the agent left it: a takeover, until resumed. */
  function takeOver(h: AgentHarness): void {
    h.runtime.dispatcher.takeover.agentLeftPointerAt({ x: 0, y: 0 });
    expect(h.runtime.dispatcher.takeover.check({ x: 150, y: 80 }).takenOver).toBe(true);
  }

  it('taken over before a step the policy allowed: an ERROR step marked taken-over, nothing run', async () => {
    const h = agentHarness({ replies: [appReply({ Function: 'execute_command', Args: { command: 'ls' } })], config: { safety: { confirmation: 'never' } } });
    const agent = new ShellAgent(null);
    agent.assign('list');
    takeOver(h);
    await tick(agent, h.runtime);
    expect(h.actions).toEqual([]);
    expect(h.steps).toMatchObject([{ status: 'ERROR', error: expect.stringMatching(/^not run: /), notRun: 'taken-over' }]);
  });

  it('an approved action the device refused because the pointer had moved: marked taken-over, nothing run', async () => {
    const h = agentHarness({
      replies: [appReply({ Function: 'execute_command', Args: { command: 'ls' } })],
      answer: () => ({ kind: 'decision', approved: true, note: null }),
      device: (tool) =>
        tool === 'execute_command'
          ? POINTER_MOVED_REPLY
          : null,
    });
    const agent = new ShellAgent(null);
    agent.assign('list');
    await tick(agent, h.runtime);
    await tick(agent, h.runtime);
    expect(h.audit.filter((row) => row.tool === 'execute_command').map((row) => row.status)).toEqual(['failure']);
    expect(h.steps.at(-1)).toMatchObject({ status: 'ERROR', approvedBy: 'user', error: expect.stringMatching(/^not run: /), notRun: 'taken-over' });
  });

  it('the user takes the mouse as the window of an approved action is brought to the front: marked taken-over', async () => {
    let focuses = 0;
    let h: AgentHarness | null = null;
    h = agentHarness({
      replies: [appReply({ Function: 'click', Args: { x: 50, y: 50 }, ControlText: 'Send' })],
      answer: () => ({ kind: 'decision', approved: true, note: null }),
      device: (tool) => {
        if (tool !== 'focus_window' || ++focuses !== 2) return null;
        // Where the agent left the pointer (a real device reports it); the device finds it moved.
        h?.runtime.dispatcher.takeover.agentLeftPointerAt({ x: 0, y: 0 });
        return POINTER_MOVED_REPLY;
      },
    });
    const agent = new AppAgent(editor, null);
    await tick(agent, h.runtime);
    await tick(agent, h.runtime);
    expect(h.actions.map((action) => action.tool)).not.toContain('click');
    expect(h.steps.at(-1)).toMatchObject({ status: 'ERROR', approvedBy: 'user', error: expect.stringMatching(/^not run: /), notRun: 'taken-over' });
  });

  it('Stop between the approval and the action: the approved step is committed marked stopped', async () => {
    let focuses = 0;
    let h: AgentHarness | null = null;
    h = agentHarness({
      replies: [appReply({ Function: 'click', Args: { x: 50, y: 50 }, ControlText: 'Send' })],
      answer: () => ({ kind: 'decision', approved: true, note: null }),
      // The focus before the approved action is where Stop comes.
      device: (tool) => {
        if (tool === 'focus_window' && ++focuses === 2) h?.abort.abort();
        return null;
      },
    });
    const agent = new AppAgent(editor, null);
    await tick(agent, h.runtime);
    expect(agent.status).toBe('CONFIRM');
    await expect(tick(agent, h.runtime)).rejects.toThrow();
    expect(h.actions.map((action) => action.tool)).not.toContain('click');
    expect(h.steps.at(-1)).toMatchObject({ status: 'ERROR', approvedBy: 'user', error: 'not run: the run was stopped', notRun: 'stopped' });
  });
});

describe('outcomeOfResults: marked not run only when none of the actions ran', () => {
  const ok: CommandResult = { status: 'success', result: 'done', error: null, durationMs: 1 };
  const takenOver: CommandResult = { status: 'failure', result: '', error: 'not run: you have taken the mouse', durationMs: 0, takenOver: true };
  const stopped: CommandResult = { status: 'skipped', result: '', error: 'not run: the run was stopped', durationMs: 0 };

  it('taken over at the first action: taken-over; after one ran: not marked', () => {
    expect(outcomeOfResults([takenOver, stopped], 'user')).toMatchObject({ status: 'ERROR', takenOver: true, notRun: 'taken-over' });
    expect(outcomeOfResults([ok, takenOver], 'user').notRun).toBeUndefined();
  });

  it('every action skipped by Stop: stopped; some ran: not marked', () => {
    expect(outcomeOfResults([stopped, stopped], 'user')).toMatchObject({ status: 'ERROR', error: 'stopped: 0 of 2 action(s) ran', notRun: 'stopped' });
    expect(outcomeOfResults([ok, stopped], 'policy').notRun).toBeUndefined();
    expect(outcomeOfResults([ok], 'policy').notRun).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { Interaction } from '../../src-main/protocol';
import { replies, runRequest, until, type HostHarness } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

/**
 * The reply contract: the model's reply formats, parsed leniently, validated strictly,
 * re-asked with the validation error a bounded number of times, and never executed when invalid; the
 * HostAgent's target rules; every Status. Black-box: a scripted model, the host core, and the fake
 * device client that logs every action that reaches it (its windows: 0x100001 "Terminal" (xterm) and
 * 0x200002 "notes.txt - Mousepad" (mousepad); window screenshots are their bounds, 320x200 / 320x400).
 */

const { app, hostTo, host } = replies;
const hostFinish = (comment = 'done') => host({ Status: 'FINISH', Comment: comment });

const start = harnessPerTest();

/** Actions that reached the device, without the host's own focusing of the agent's window. */
function acted(h: HostHarness) {
  return h.deviceActions().filter((action) => action.tool !== 'focus_window');
}

/** The HostAgent reply with every field of the contract, in the contract's order. */
const FULL_HOST = {
  Observation: 'a terminal and an editor are open',
  Thought: 'the terminal can do it',
  'Current Sub-Task': 'click in the terminal',
  Message: ['the terminal is the left window'],
  ControlLabel: '0x100001',
  ControlText: 'Terminal',
  Plan: ['then finish'],
  Status: 'CONTINUE',
  Comment: 'handing over',
  Questions: [''],
  AppsToOpen: null,
};

/** The AppAgent reply with every field of the contract. */
const FULL_APP = {
  Observation: 'the terminal',
  Thought: 'click it',
  ControlLabel: '',
  ControlText: 'Terminal',
  Function: 'click',
  Args: { x: 10, y: 20 },
  Status: 'CONTINUE',
  Plan: [''],
  Comment: 'clicking',
  Questions: [''],
  SaveScreenshot: { save: false, reason: '' },
  Actions: [],
  Form: null,
};

describe('section 4: reply fields exactly as listed', () => {
  it('accepts a HostAgent reply with every listed field, and an AppAgent reply with every listed field, and acts', async () => {
    const h = await start({
      name: 'full fields',
      steps: [{ json: FULL_HOST }, { json: FULL_APP }, app({ Function: '', Status: 'FINISH', Comment: 'clicked' }), hostFinish('ok')],
    });
    const { outcome, steps } = await runRequest(h.host, 'click the terminal');
    expect(steps.map((step) => step.error)).toEqual([null, null, null, null]);
    expect(outcome).toEqual({ status: 'finished', result: 'ok' });
    expect(acted(h)).toEqual([{ tool: 'click', args: { x: 10, y: 20 } }]);
    h.model.assertDone();
  });

  it('AppsToOpen null opens nothing and hands over to the target', async () => {
    const h = await start({
      name: 'apps to open null',
      steps: [hostTo('Terminal', 'look', { AppsToOpen: null }), app({ Function: '', Status: 'FINISH', Comment: 'looked' }), hostFinish()],
    });
    const { steps } = await runRequest(h.host, 'look');
    expect(steps.map((step) => `${step.agent}:${step.status}:${step.error}`)).toEqual(['HostAgent:CONTINUE:null', 'AppAgent:FINISH:null', 'HostAgent:FINISH:null']);
    expect(steps[1]).toMatchObject({ target: 'Terminal' });
    expect(h.deviceActions().filter((action) => action.tool === 'launch_app')).toEqual([]);
  });

  it('AppsToOpen with a file_path (held for approval, then approved) opens it and hands the sub-task to its window', async () => {
    const h = await start(
      {
        name: 'apps to open with a file',
        steps: [
          host({ Status: 'CONTINUE', 'Current Sub-Task': 'write in the file', ControlText: '', AppsToOpen: { APP: 'gedit', file_path: '/tmp/notes.txt' } }),
          { ...app({ Function: '', Status: 'FINISH', Comment: 'written' }), expect: { contains: ['write in the file'] } },
          hostFinish(),
        ],
      },
      // Opening an application with a file is a command line: in the default mode it waits for approval (section 7).
      { autoResponder: (request) => (request.kind === 'confirm' ? { kind: 'decision', approved: true, note: null } : null) },
    );
    const { steps } = await runRequest(h.host, 'write in gedit');
    expect(h.deviceActions().filter((action) => action.tool === 'launch_app')).toEqual([
      { tool: 'launch_app', args: { name: 'gedit', args: ['/tmp/notes.txt'] } },
    ]);
    // After the approved launch, the sub-task goes to the new window (not back to the HostAgent).
    expect(steps.map((step) => `${step.agent}:${step.status}`)).toEqual(['HostAgent:CONFIRM', 'HostAgent:CONTINUE', 'AppAgent:FINISH', 'HostAgent:FINISH']);
    expect(steps[2]).toMatchObject({ agent: 'AppAgent', target: 'gedit window', subtask: 'write in the file' });
    h.model.assertDone();
  });

  it("AppsToOpen in the 'always' confirmation mode (held, then approved) hands the sub-task to the opened window", async () => {
    const h = await start(
      {
        name: 'apps to open, always',
        steps: [
          host({ Status: 'CONTINUE', 'Current Sub-Task': 'write', ControlText: '', AppsToOpen: { APP: 'gedit', file_path: '' } }),
          app({ Function: '', Status: 'FINISH', Comment: 'written' }),
          hostFinish(),
        ],
      },
      {
        config: { safety: { confirmation: 'always' } },
        autoResponder: (request) => (request.kind === 'confirm' ? { kind: 'decision', approved: true, note: null } : null),
      },
    );
    const { steps } = await runRequest(h.host, 'write in gedit');
    expect(steps.map((step) => `${step.agent}:${step.status}`)).toEqual(['HostAgent:CONFIRM', 'HostAgent:CONTINUE', 'AppAgent:FINISH', 'HostAgent:FINISH']);
    expect(steps[2]).toMatchObject({ target: 'gedit window' });
  });

  it('AppsToOpen as the contract\'s template with an empty APP is not an application to open: the hand-off goes to ControlText', async () => {
    const h = await start({
      name: 'apps to open template',
      steps: [
        hostTo('Terminal', 'look', { AppsToOpen: { APP: '', file_path: '' } }),
        app({ Function: '', Status: 'FINISH', Comment: 'looked' }),
        hostFinish(),
      ],
    });
    const { steps } = await runRequest(h.host, 'look at the terminal');
    const repair = h.model.requests.find((request) => request.text.includes('Your reply could not be used'));
    expect(repair?.text.match(/Your reply could not be used: [^\n]*/)?.[0], 'the template AppsToOpen was refused').toBeUndefined();
    expect(steps[0]?.error).toBeNull();
    expect(steps[1]).toMatchObject({ agent: 'AppAgent', target: 'Terminal' });
    expect(h.deviceActions().filter((action) => action.tool === 'launch_app')).toEqual([]);
  });
});

/** The AppAgent example exactly as the reply contract prints it. */
const CONTRACT_APP_EXAMPLE = {
  Observation: '', Thought: '', ControlLabel: '', ControlText: '',
  Function: 'click', Args: { x: 0, y: 0 }, Status: 'CONTINUE', Plan: [''],
  Comment: '', Questions: [''], SaveScreenshot: { save: false, reason: '' },
  Actions: [{ Function: '', Args: {}, ControlLabel: '', ControlText: '', Status: '' }],
  Form: { schema: {}, uischema: {}, data: {} },
};

describe("section 4: the contract's own AppAgent example", () => {
  const run = async (reply: Record<string, unknown>) => {
    const h = await start({
      name: 'contract example',
      steps: [hostTo('Terminal', 'click'), { json: reply }, app({ Function: '', Status: 'FINISH' }), hostFinish()],
    });
    const { steps } = await runRequest(h.host, 'click');
    return { h, steps };
  };

  it('verbatim: the click runs (placeholder Actions and an empty Form are no sequence and no form)', async () => {
    const { h, steps } = await run(CONTRACT_APP_EXAMPLE);
    expect(steps[1]?.error ?? null).toBeNull();
    expect(acted(h)).toEqual([{ tool: 'click', args: { x: 0, y: 0 } }]);
  });

  it('with the empty Form placeholder only: the click runs', async () => {
    const { h, steps } = await run({ ...CONTRACT_APP_EXAMPLE, Actions: null });
    expect(steps[1]?.error ?? null).toBeNull();
    expect(acted(h)).toEqual([{ tool: 'click', args: { x: 0, y: 0 } }]);
  });

  it('with the placeholder Actions entry only: the click runs', async () => {
    const { h, steps } = await run({ ...CONTRACT_APP_EXAMPLE, Form: null });
    expect(steps[1]?.error ?? null).toBeNull();
    expect(acted(h)).toEqual([{ tool: 'click', args: { x: 0, y: 0 } }]);
  });
});

describe('section 4: lenient parsing', () => {
  it('takes the JSON out of code fences and leading text, for the HostAgent and the AppAgent alike', async () => {
    const fenced = (value: unknown) => ({ content: `Here is my answer.\n\`\`\`json\n${JSON.stringify(value)}\n\`\`\`\nHope that helps.` });
    const prose = (value: unknown) => ({ content: `Thinking about it, I will do this: ${JSON.stringify(value)}` });
    const h = await start({
      name: 'lenient',
      steps: [
        fenced(hostTo('Terminal', 'click it').json),
        prose(app({ Function: 'click', Args: { x: 3, y: 4 }, Status: 'CONTINUE' }).json),
        fenced(app({ Function: '', Status: 'FINISH', Comment: 'clicked' }).json),
        prose(hostFinish('lenient ok').json),
      ],
    });
    const { outcome, steps } = await runRequest(h.host, 'click it');
    expect(steps.map((step) => step.status)).toEqual(['CONTINUE', 'CONTINUE', 'FINISH', 'FINISH']);
    expect(outcome).toEqual({ status: 'finished', result: 'lenient ok' });
    expect(acted(h)).toEqual([{ tool: 'click', args: { x: 3, y: 4 } }]);
    // No repair was needed: one model request per step.
    expect(h.model.requests).toHaveLength(4);
  });
});

describe('section 4: strict validation, bounded re-asks, invalid output never executes', () => {
  it('re-asks with the validation error quoted, at most maxRepairs times, then records ERROR and runs nothing', async () => {
    const invalid = app({ Function: 'click', Args: { x: 1, y: 1 }, Status: 'CONTINUE', Sudo: true });
    const h = await start(
      {
        name: 'bounded repairs',
        steps: [
          hostTo('Terminal', 'click'),
          invalid,
          { ...invalid, expect: { contains: ['Your reply could not be used', 'Sudo'] } },
          { ...invalid, expect: { contains: ['Your reply could not be used', 'Sudo'] } },
          // The next step starts afresh, told about the failure.
          { ...app({ Function: '', Status: 'FAIL', Comment: 'gave up' }), expect: { contains: ['Sudo'] } },
          host({ Status: 'FAIL', Comment: 'failed' }),
        ],
      },
      { config: { limits: { maxRepairs: 2 } } },
    );
    const { outcome, steps } = await runRequest(h.host, 'click');
    expect(steps[1]).toMatchObject({ status: 'ERROR', action: null });
    expect(steps[1]?.error).toMatch(/Sudo|nrecognized/);
    expect(outcome.status).toBe('failed');
    expect(acted(h)).toEqual([]);
    h.model.assertDone();
  });

  it('re-asks the HostAgent too, and a mended reply is used', async () => {
    const h = await start({
      name: 'host repair',
      steps: [
        host({ Status: 'DONE' }),
        { ...hostFinish('mended'), expect: { contains: ['Your reply could not be used', 'Status'] } },
      ],
    });
    const { outcome, steps } = await runRequest(h.host, 'anything');
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ status: 'FINISH', error: null });
    expect(outcome).toEqual({ status: 'finished', result: 'mended' });
  });

  it('a field of the wrong type in an otherwise valid acting reply never reaches the device', async () => {
    const h = await start({
      name: 'wrong type',
      steps: [
        hostTo('Terminal', 'click'),
        app({ Function: 'click', Args: { x: 1, y: 1 }, Status: 'CONTINUE', Plan: { first: 'x' } }),
        app({ Function: 'click', Args: { x: 1, y: 1 }, Status: 'CONTINUE', Questions: 7 }),
        app({ Function: '', Status: 'FAIL' }),
        host({ Status: 'FAIL' }),
      ],
    });
    const { steps } = await runRequest(h.host, 'click');
    expect(steps[1]?.status).toBe('ERROR');
    expect(acted(h)).toEqual([]);
  });
});

describe('section 4: HostAgent ControlLabel / ControlText', () => {
  it('an empty ControlLabel with ControlText naming exactly one window (title or application) or agent selects it', async () => {
    const to = (text: string, subtask: string) => host({ Status: 'CONTINUE', 'Current Sub-Task': subtask, ControlLabel: '', ControlText: text });
    const h = await start(
      {
        name: 'control text',
        steps: [
          to('notes.txt - Mousepad', 'by title'),
          app({ Function: '', Status: 'FINISH', Comment: 'a' }),
          to('xterm', 'by app'),
          app({ Function: '', Status: 'FINISH', Comment: 'b' }),
          to('ShellAgent', 'by agent'),
          app({ Function: '', Status: 'FINISH', Comment: 'c' }),
          hostFinish(),
        ],
      },
      { config: { safety: { confirmation: 'never' } } },
    );
    const { steps } = await runRequest(h.host, 'three sub-tasks');
    expect(steps.map((step) => step.error)).toEqual([null, null, null, null, null, null, null]);
    expect(steps.map((step) => step.agent)).toEqual(['HostAgent', 'AppAgent', 'HostAgent', 'AppAgent', 'HostAgent', 'ShellAgent', 'HostAgent']);
    expect(steps[1]?.target).toBe('notes.txt - Mousepad');
    expect(steps[3]?.target).toBe('Terminal');
    const focused = h.deviceActions().filter((action) => action.tool === 'focus_window');
    expect(focused.map((action) => action.args.id)).toEqual(['0x200002', '0x100001']);
  });

  it('ControlText that names two windows is an error, not a guess; nothing is handed over', async () => {
    const h = await start({
      name: 'ambiguous',
      steps: [
        // Opens an application called "Terminal": its window's app is "Terminal", and the xterm's title is "Terminal".
        host({ Status: 'CONTINUE', 'Current Sub-Task': 'open it', AppsToOpen: { APP: 'Terminal', file_path: '' } }),
        app({ Function: '', Status: 'FINISH', Comment: 'opened' }),
        host({ Status: 'CONTINUE', 'Current Sub-Task': 'which one?', ControlLabel: '', ControlText: 'Terminal' }),
        hostFinish(),
      ],
    });
    const { steps } = await runRequest(h.host, 'ambiguous');
    expect(steps[2]).toMatchObject({ agent: 'HostAgent', status: 'ERROR' });
    expect(steps[2]?.error).toMatch(/names 2 windows or agents/);
    expect(steps[3]).toMatchObject({ agent: 'HostAgent', status: 'FINISH' });
  });

  it('a ControlLabel that is not listed is an error even when ControlText names a listed window', async () => {
    const h = await start({
      name: 'unlisted id',
      steps: [host({ Status: 'CONTINUE', 'Current Sub-Task': 'x', ControlLabel: '0x999999', ControlText: 'Terminal' }), hostFinish()],
    });
    const { steps } = await runRequest(h.host, 'unlisted');
    expect(steps[0]).toMatchObject({ status: 'ERROR' });
    expect(steps[0]?.error).toMatch(/ControlLabel '0x999999' is not a listed window id/);
    expect(steps).toHaveLength(2);
    expect(h.deviceActions()).toEqual([]);
  });
});

/** Waits for an interaction of `kind` to be requested. */
async function interaction(h: HostHarness, kind: Interaction['kind']): Promise<Interaction> {
  for (let i = 0; i < 400; i++) {
    const event = h.events.find((candidate) => candidate.kind === 'interaction.requested' && candidate.interaction.kind === kind);
    if (event?.kind === 'interaction.requested') return event.interaction;
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error(`no ${kind} interaction`);
}

describe('section 4: every Status', () => {
  it('SCREENSHOT: no action runs; the next step decides on a fresh observation', async () => {
    const h = await start({
      name: 'screenshot status',
      steps: [
        hostTo('Terminal', 'look twice'),
        app({ Function: 'click', Args: { x: 5, y: 5 }, Status: 'SCREENSHOT', Comment: 'let me look again' }),
        app({ Function: '', Status: 'FINISH', Comment: 'seen' }),
        hostFinish(),
      ],
    });
    const { steps } = await runRequest(h.host, 'look');
    expect(steps[1]).toMatchObject({ agent: 'AppAgent', status: 'SCREENSHOT', error: null });
    expect(acted(h)).toEqual([]);
    // The step after SCREENSHOT was sent a screenshot of its own.
    expect(h.model.requests[2]?.images).toBe(1);
    expect(steps[2]?.screenshot).not.toBeNull();
    expect(steps[2]?.screenshot).not.toBe(steps[1]?.screenshot);
  });

  it('CONFIRM on an action no rule holds: it waits for approval, and runs once approved', async () => {
    const h = await start(
      {
        name: 'confirm click',
        steps: [
          hostTo('Terminal', 'click it'),
          app({ Function: 'click', Args: { x: 7, y: 8 }, Status: 'CONFIRM' }),
          app({ Function: '', Status: 'FINISH', Comment: 'clicked' }),
          hostFinish(),
        ],
      },
      { autoResponder: (request) => (request.kind === 'confirm' ? { kind: 'decision', approved: true, note: null } : null) },
    );
    const { steps } = await runRequest(h.host, 'click');
    expect(steps.slice(1, 3).map((step) => `${step.status}:${step.approvedBy}`)).toEqual(['CONFIRM:null', 'CONTINUE:user']);
    expect(acted(h)).toEqual([{ tool: 'click', args: { x: 7, y: 8 } }]);
  });

  it('CONFIRM rejected: the click never runs', async () => {
    const h = await start(
      {
        name: 'confirm rejected',
        steps: [
          hostTo('Terminal', 'click it'),
          app({ Function: 'click', Args: { x: 7, y: 8 }, Status: 'CONFIRM' }),
          app({ Function: '', Status: 'FAIL', Comment: 'not allowed' }),
          host({ Status: 'FAIL', Comment: 'rejected' }),
        ],
      },
      { autoResponder: (request) => (request.kind === 'confirm' ? { kind: 'decision', approved: false, note: null } : null) },
    );
    const { outcome } = await runRequest(h.host, 'click');
    expect(outcome.status).toBe('failed');
    expect(acted(h)).toEqual([]);
  });

  it('PENDING with Questions (AppAgent): the user is asked, the answer reaches the next prompt', async () => {
    const h = await start({
      name: 'app pending',
      steps: [
        hostTo('Terminal', 'ask'),
        app({ Function: '', Status: 'PENDING', Questions: ['Which colour?', 'How many?'] }),
        { ...app({ Function: '', Status: 'FINISH', Comment: 'blue x3' }), expect: { contains: ['Which colour?', 'blue', 'How many?', '3'] } },
        hostFinish(),
      ],
    });
    const run = runRequest(h.host, 'ask me');
    const asked = await interaction(h, 'questions');
    expect(asked).toMatchObject({ questions: ['Which colour?', 'How many?'] });
    await h.host.endpoint.handle({ type: 'interaction.answer', id: 'a', sessionId: asked.sessionId, interactionId: asked.id, answers: ['blue', '3'] });
    expect((await run).outcome.status).toBe('finished');
    h.model.assertDone();
  });

  it('PENDING with a Form (no Questions): the form is shown, and its submission reaches the agent', async () => {
    const form = { schema: { type: 'object', properties: { city: { type: 'string' } } }, uischema: { type: 'VerticalLayout', elements: [{ type: 'Control', scope: '#/properties/city' }] }, data: { city: 'Porto' } };
    const h = await start({
      name: 'app form',
      steps: [
        hostTo('Terminal', 'ask'),
        app({ Function: '', Status: 'PENDING', Questions: [], Form: form }),
        { ...app({ Function: '', Status: 'FINISH', Comment: 'ok' }), expect: { contains: ['Form submitted', 'Lisbon'] } },
        hostFinish(),
      ],
    });
    const run = runRequest(h.host, 'form');
    const current = h;
    const opened = await until(() => current.events.find((event) => event.kind === 'form.updated'), 'the form');
    if (opened.kind !== 'form.updated') throw new Error('not a form');
    const started = current.events.find((event) => event.kind === 'session.started');
    if (started?.kind !== 'session.started') throw new Error('no session');
    const sessionId = started.session.id;
    expect(await h.host.endpoint.handle({ type: 'form.event', id: 'v', sessionId, formId: opened.form.formId, path: 'city', value: 'Lisbon', action: null })).toMatchObject({ ok: true });
    expect(await h.host.endpoint.handle({ type: 'form.event', id: 'f', sessionId, formId: opened.form.formId, path: '', value: null, action: 'Send' })).toMatchObject({ ok: true });
    expect((await run).outcome.status).toBe('finished');
  });

  it('FAIL of an AppAgent goes back to the HostAgent; FAIL of the HostAgent ends the round failed', async () => {
    const h = await start({
      name: 'fail',
      steps: [
        hostTo('Terminal', 'try'),
        app({ Function: '', Status: 'FAIL', Comment: 'cannot' }),
        { ...host({ Status: 'FAIL', Comment: 'could not' }), expect: { contains: ['FAIL'] } },
      ],
    });
    const { outcome, steps } = await runRequest(h.host, 'try');
    expect(steps.map((step) => `${step.agent}:${step.status}`)).toEqual(['HostAgent:CONTINUE', 'AppAgent:FAIL', 'HostAgent:FAIL']);
    expect(outcome).toEqual({ status: 'failed', result: 'could not' });
  });
});

describe('section 4: Actions (action-sequence mode)', () => {
  it('runs every action in order with Function and Args empty', async () => {
    const h = await start({
      name: 'sequence',
      steps: [
        hostTo('Terminal', 'three actions'),
        app({
          Function: '',
          Args: {},
          Status: 'CONTINUE',
          Actions: [
            { Function: 'click', Args: { x: 5, y: 6 }, ControlLabel: '', ControlText: '', Status: '' },
            { Function: 'type_text', Args: { text: 'hello' }, ControlLabel: '', ControlText: '', Status: 'CONTINUE' },
            { Function: 'wait', Args: { seconds: 0 } },
          ],
        }),
        app({ Function: '', Status: 'FINISH', Comment: 'done' }),
        hostFinish(),
      ],
    }, { config: { safety: { confirmation: 'never' } } });
    const { steps } = await runRequest(h.host, 'sequence');
    expect(steps[1]).toMatchObject({ status: 'CONTINUE', error: null });
    expect(acted(h)).toEqual([
      { tool: 'click', args: { x: 5, y: 6 } },
      { tool: 'type_text', args: { text: 'hello' } },
      { tool: 'wait', args: { seconds: 0 } },
    ]);
  });
});

describe('section 5: coordinates', () => {
  it('are pixels of the last image the model was sent: a point outside it is refused, nothing runs', async () => {
    const h = await start({
      name: 'outside',
      steps: [
        hostTo('Terminal', 'click'),
        // The Terminal's screenshot is 320x200 (its window), not the 640x400 screen.
        app({ Function: 'click', Args: { x: 400, y: 100 }, Status: 'CONTINUE' }),
        app({ Function: 'click', Args: { x: 319, y: 199 }, Status: 'CONTINUE' }),
        app({ Function: '', Status: 'FINISH' }),
        hostFinish(),
      ],
    });
    const { steps } = await runRequest(h.host, 'click');
    expect(steps[1]?.error).toMatch(/outside the 320x200 screenshot/);
    expect(acted(h)).toEqual([{ tool: 'click', args: { x: 319, y: 199 } }]);
  });

  it('with the normalised 0..1000 setting, a point is scaled to the image the model saw', async () => {
    const h = await start(
      {
        name: 'normalised',
        steps: [
          hostTo('Terminal', 'click'),
          app({ Function: 'click', Args: { x: 500, y: 500 }, Status: 'CONTINUE' }),
          app({ Function: 'click', Args: { x: 1000, y: 0 }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH' }),
          hostFinish(),
        ],
      },
      { config: { agent: { normalizedCoordinates: true } } },
    );
    const { steps } = await runRequest(h.host, 'click');
    expect(steps.map((step) => step.error)).toEqual([null, null, null, null, null]);
    // 320x200 image: 500/1000 -> the middle; 1000 -> the last pixel.
    expect(acted(h)).toEqual([
      { tool: 'click', args: { x: 160, y: 100 } },
      { tool: 'click', args: { x: 319, y: 0 } },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { replies } from '../support/host-harness';
import { closedAfterEach } from '../support/host-per-test';
import { roundWithin, startReliabilityHost } from '../support/reliability-harness';

// Found by the generated hostile replies: the reply format's record-typed fields (Args) drop a
// "__proto__" key instead of refusing it, so a reply with an argument the tool does not have still acts.
// Every other unknown argument is refused ("invalid arguments for click"), and this one must be too.

const startRig = closedAfterEach(startReliabilityHost);

describe('unknown keys in Args', () => {
  it('a "__proto__" argument is refused like any unknown argument, and the click never runs', async () => {
    const base = { Observation: 'o', Thought: 't', ControlLabel: '', ControlText: '', Plan: [], Comment: '', Status: 'CONTINUE', Function: 'click' };
    const rig = await startRig(
      {
        name: 'proto args',
        steps: [
          replies.hostTo('0x100001', 'click the button'),
          // Written by hand: JSON.stringify would not produce a "__proto__" key from an object literal.
          { content: `${JSON.stringify(base).slice(0, -1)},"Args":{"x":5,"y":5,"__proto__":{"button":"right"}}}` },
          { content: `${JSON.stringify(base).slice(0, -1)},"Args":{"x":5,"y":5,"force":true}}` },
          replies.app({ Function: '', Status: 'FINISH', Comment: 'ok' }),
          replies.host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { config: { limits: { maxRepairs: 0, maxConsecutiveErrors: 5 }, safety: { confirmation: 'never' } } },
    );
    const start = await rig.host.endpoint.handle({ type: 'session.start', id: 's', request: 'click the button', mode: 'desktop' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    await roundWithin(rig.host, 30_000, 'proto args');
    const steps = rig.host.store.steps(sessionId).filter((step) => step.agent === 'AppAgent');
    // The plain unknown argument: refused, as it should be.
    expect(steps[1]).toMatchObject({ status: 'ERROR' });
    expect(steps[1]?.error).toMatch(/invalid arguments for click/);
    // The "__proto__" one: today it is accepted and the click runs.
    expect(steps[0]).toMatchObject({ status: 'ERROR' });
    expect(steps[0]?.error).toMatch(/invalid arguments for click|__proto__/);
    expect(rig.deviceActions().map((action) => action.tool)).toEqual(['focus_window']);
  });
});

import { describe, expect, it } from 'vitest';
import type { BasicAgent } from '../../src-main/agents/basic-agent';
import { StateManager } from '../../src-main/agents/states/agent-state';
import { agentStates, ContinueState } from '../../src-main/agents/states/states';
import type { AgentStatus } from '../../src-main/protocol';

/** Just enough of an agent for the state machine: a status, a host, and a hand-off. */
function fakeAgent(root: boolean, host: BasicAgent | null = null, handoff: BasicAgent | null = null): BasicAgent {
  const agent = {
    status: 'CONTINUE' as AgentStatus,
    host,
    states: agentStates('Test', root),
    takeHandoff: () => handoff,
  };
  return agent as unknown as BasicAgent;
}

describe('agent states', () => {
  it('registers every status by name and refuses duplicates and unknown names', () => {
    const states = agentStates('AppAgent', false);
    expect(states.names().sort()).toEqual(['CONFIRM', 'CONTINUE', 'ERROR', 'FAIL', 'FINISH', 'PENDING', 'SCREENSHOT']);
    expect(() => new StateManager('X').register(new ContinueState(), new ContinueState())).toThrow(/registered twice/);
    expect(() => new StateManager('X').get('CONTINUE')).toThrow(/X has no state CONTINUE/);
  });

  it('follows the agent status from one state to the next', () => {
    const agent = fakeAgent(false);
    const continuing = agent.states.get('CONTINUE');
    for (const status of ['PENDING', 'CONFIRM', 'SCREENSHOT', 'FINISH', 'ERROR'] as AgentStatus[]) {
      agent.status = status;
      expect(continuing.nextState(agent).name).toBe(status);
    }
  });

  it('ends a delegate\'s sub-task at FINISH/FAIL and goes back to the host; the root ends the round', () => {
    const host = fakeAgent(true);
    const delegate = fakeAgent(false, host);
    for (const status of ['FINISH', 'FAIL'] as AgentStatus[]) {
      const delegateEnd = delegate.states.get(status);
      expect(delegateEnd.isSubtaskEnd()).toBe(true);
      expect(delegateEnd.isRoundEnd()).toBe(false);
      expect(delegateEnd.nextAgent(delegate)).toBe(host);
      const rootEnd = host.states.get(status);
      expect(rootEnd.isRoundEnd()).toBe(true);
      expect(rootEnd.nextAgent(host)).toBe(host);
    }
  });

  it('ends the round at ERROR for any agent; PENDING, CONFIRM and CONTINUE never end it', () => {
    const delegate = fakeAgent(false, fakeAgent(true));
    expect(delegate.states.get('ERROR').isRoundEnd()).toBe(true);
    for (const status of ['CONTINUE', 'PENDING', 'CONFIRM', 'SCREENSHOT'] as AgentStatus[]) {
      expect(delegate.states.get(status).isRoundEnd()).toBe(false);
      expect(delegate.states.get(status).isSubtaskEnd()).toBe(false);
    }
  });

  it('hands over from the host\'s CONTINUE to the agent it picked', () => {
    const picked = fakeAgent(false);
    const host = fakeAgent(true, null, picked);
    expect(host.states.get('CONTINUE').nextAgent(host)).toBe(picked);
    expect(fakeAgent(true).states.get('CONTINUE').nextAgent(host)).toBe(picked);
  });
});

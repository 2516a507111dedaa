import { describe, expect, it } from 'vitest';
import { replies, runRequest, until } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

const { app } = replies;
const startHarness = harnessPerTest();

describe('Stop while a command runs', () => {
  it('the step says the run was stopped, not the MCP client\'s abort error', async () => {
    const harness = await startHarness(
      { name: 'stopped mid-command', steps: [app({ Function: 'execute_command', Args: { command: 'sleep 20' }, Status: 'CONTINUE' })] },
      { config: { safety: { confirmation: 'never' } } },
    );
    const run = runRequest(harness.host, 'wait a while', 'shell');
    await until(() => harness.deviceActions().some((action) => action.tool === 'execute_command'), 'the command to start');
    await harness.host.endpoint.handle({ type: 'session.stop', id: 'stop', sessionId: harness.host.sessions.runningSessionId ?? '' });
    const { outcome, steps, sessionId } = await run;
    expect(outcome.status).toBe('stopped');
    const last = steps.at(-1);
    expect(last).toMatchObject({ status: 'ERROR', error: 'stopped while it ran: the run was stopped' });
    expect(last?.error).not.toMatch(/MCP error|AbortError/);
    expect(harness.host.audit.list(sessionId)).toMatchObject([{ tool: 'execute_command', status: 'failure', error: 'stopped while it ran: the run was stopped' }]);
  });
});

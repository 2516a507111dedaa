import { describe, expect, it } from 'vitest';
import { USAGE } from '../../src-main/cli/args';
import { CLI_NOT_RUN, notRunNotice } from '../../src-main/cli/steps';
import { NotRun, type HostEvent } from '../../src-main/protocol';
import { makeStep } from '../support/ui-fixtures';

const added = (overrides: Parameters<typeof makeStep>[2]): HostEvent => ({ kind: 'step.added', step: makeStep('s1', 1, overrides) });

describe('the CLI says why a step did not run', () => {
  it('on stderr, naming the step and its action, for every reason', () => {
    expect(notRunNotice(added({ actionText: "Run 'rm -r old'\nRun 'ls'", notRun: 'rejected' }))).toBe(
      "deskhand: step 2 not run: rejected (steps held for approval are rejected unless --approve is given) [Run 'rm -r old']\n",
    );
    expect(notRunNotice(added({ actionText: "Click 'Save' at (3, 4)", notRun: 'taken-over' }))).toBe("deskhand: step 2 not run: you had taken the mouse [Click 'Save' at (3, 4)]\n");
    expect(notRunNotice(added({ actionText: "Run 'ls'", notRun: 'stopped' }))).toBe("deskhand: step 2 not run: the run was stopped before it ran [Run 'ls']\n");
    for (const reason of NotRun.options) expect(notRunNotice(added({ notRun: reason }))).toContain(`not run: ${CLI_NOT_RUN[reason]}`);
  });

  it('says nothing for a step that ran, or for other events', () => {
    expect(notRunNotice(added({ notRun: null }))).toBeNull();
    expect(notRunNotice({ kind: 'status.changed', sessionId: 's1', status: 'running', detail: 'Working' })).toBeNull();
  });

  it('--help names the reasons a step line carries as notRun', () => {
    expect(USAGE).toMatch(/notRun: rejected, paused, refused[\s\S]*taken-over[\s\S]*stopped/);
  });
});

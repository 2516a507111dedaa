import { describe, expect, it } from 'vitest';
import { recordText } from '../../src-renderer/src/components/blackboardText';

describe("the blackboard drawer's trajectory records", () => {
  it('shows no "Subtask: null" line for a step without a sub-task, nor any other field that holds null', () => {
    const text = recordText({ Step: 3, Agent: 'HostAgent', Subtask: null, Action: 'No action', Status: 'ASSIGN', Result: null, Comment: '' });
    expect(text).not.toContain('null');
    expect(text).toBe('Step: 3\nAgent: HostAgent\nAction: No action\nStatus: ASSIGN\nComment: ');
  });

  it('shows a sub-task and every other field as before: texts as they are, anything else as JSON', () => {
    const text = recordText({ Step: 4, Subtask: 'list the files', Decision: 'rejected', Extra: { a: 1 } });
    expect(text).toBe('Step: 4\nSubtask: list the files\nDecision: rejected\nExtra: {"a":1}');
  });
});

import { describe, expect, it, vi } from 'vitest';
import { NOT_RUN_DETAILS, NOT_RUN_LABELS } from '../../src-renderer/src/components/labels';
import { parseHostMessage, resultFromReply } from '../../src-renderer/src/bridge/replies';
import { NotRun } from '../../src-main/protocol';
import { makeSession, makeStep } from '../support/ui-fixtures';

describe('why a step did not run, as the renderer receives and labels it', () => {
  it('keeps it on a step of session.open and of step.added, and reads an older host\'s step without it as null', () => {
    const session = makeSession('s1');
    const rejected = makeStep('s1', 0, { notRun: 'rejected' });
    const { notRun: _dropped, ...older } = makeStep('s1', 1);
    const reply = parseHostMessage({ type: 'reply', id: 'r1', ok: true, result: { session, steps: [rejected, older] } });
    if (reply?.type !== 'reply') throw new Error('expected a reply');
    expect(resultFromReply('session.open', reply).steps.map((step) => step.notRun)).toEqual(['rejected', null]);
    const event = parseHostMessage({ type: 'event', event: { kind: 'step.added', step: makeStep('s1', 2, { notRun: 'refused' }) } });
    expect(event?.type === 'event' && event.event.kind === 'step.added' ? event.event.step.notRun : undefined).toBe('refused');
    for (const reason of ['taken-over', 'stopped'] as const) {
      const added = parseHostMessage({ type: 'event', event: { kind: 'step.added', step: makeStep('s1', 3, { notRun: reason }) } });
      expect(added?.type === 'event' && added.event.kind === 'step.added' ? added.event.step.notRun : undefined).toBe(reason);
    }
  });

  it('drops a step.added whose reason is not one the protocol knows, like any other message that breaks it', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(parseHostMessage({ type: 'event', event: { kind: 'step.added', step: { ...makeStep('s1', 0), notRun: 'skipped' } } })).toBeNull();
      expect(warn).toHaveBeenCalledOnce();
    } finally {
      warn.mockRestore();
    }
  });

  it('names every reason in words, with more on hover', () => {
    expect(NotRun.options.map((reason) => NOT_RUN_LABELS[reason])).toEqual([
      'Rejected by you',
      'Not run: paused',
      'Refused by the safety rule',
      'Not run: you had the mouse',
      'Not run: stopped',
    ]);
    for (const reason of NotRun.options) expect(NOT_RUN_DETAILS[reason]).toMatch(/did not run/);
  });
});

import { describe, expect, it } from 'vitest';
import { SafetyPolicy, type SafetyInput } from '../../src-main/commands/safety-policy';
import { validateAction } from '../../src-main/commands/validate-action';
import { SafetyConfig } from '../../src-main/host/config';

const policy = new SafetyPolicy(SafetyConfig.parse({}));
const click = (controlText: string): SafetyInput => ({ toolName: 'click', args: { x: 1, y: 1 }, controlText, modelStatus: 'CONTINUE', trustedTool: true });

describe('control-text rules and how a label is spelled', () => {
  it('hold a control whose label hides the word behind invisible characters or other widths', () => {
    // Soft hyphens (&shy; on web pages), zero-width spaces and joiners, and full-width letters all show as the word.
    for (const label of ['Sub\u00admit', 'S\u200bend', 'De\u200dlete', '\u200eBuy now', 'Ｓｅｎｄ']) {
      expect(policy.evaluate(click(label)), JSON.stringify(label)).toMatchObject({ decision: 'confirm' });
    }
  });

  it('still match whole words only', () => {
    for (const label of ['Sen\u00adder', 'Undeleted', 'Ｐａｙｌｏａｄ']) {
      expect(policy.evaluate(click(label)).decision, JSON.stringify(label)).toBe('allow');
    }
  });
});

describe('validateAction: a point is both coordinates or none', () => {
  const tools = new Set(['type_text', 'click']);

  it('refuses half a point before it reaches the device, which would refuse it anyway', () => {
    for (const args of [{ text: 'hi', x: 5 }, { text: 'hi', y: 5 }]) {
      const checked = validateAction('type_text', args, tools);
      expect(checked, JSON.stringify(args)).toMatchObject({ ok: false, error: expect.stringMatching(/type_text.*both x and y/) });
    }
    expect(validateAction('type_text', { text: 'hi', x: 5, y: 6 }, tools).ok).toBe(true);
    expect(validateAction('type_text', { text: 'hi' }, tools).ok).toBe(true);
  });
});

describe('validateAction: an error about arguments stays short', () => {
  it('cuts an issue that quotes a huge unknown argument name, and still names the tool', () => {
    const checked = validateAction('click', { x: 1, y: 2, ['k'.repeat(50_000)]: 1 }, new Set(['click']));
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error).toMatch(/^invalid arguments for click: /);
    expect(checked.error.length).toBeLessThan(1_500);
  });
});

describe('closing an application by its menu item or button', () => {
  it('waits like the chords that close one (Alt+F4, Ctrl+Q)', () => {
    for (const label of ['Quit', 'Exit', 'File > Quit', 'Quit Mousepad', 'E\u00adxit']) {
      const word = label.includes('xit') ? 'Exit' : 'Quit';
      expect(policy.evaluate(click(label)), label).toEqual({ decision: 'confirm', reasons: [`rule: closes an application (control text '${word}')`] });
      expect(policy.evaluate({ ...click(label), toolName: 'hotkey', args: { keys: ['enter'] } }).decision, label).toBe('confirm');
    }
    // A dialog's Close button is too common to hold; the window's own close is Alt+F4 or Ctrl+W.
    for (const label of ['Quite good', 'Exits list', 'Close']) expect(policy.evaluate(click(label)).decision, label).toBe('allow');
    expect(new SafetyPolicy(SafetyConfig.parse({ confirmation: 'never' })).evaluate(click('Quit')).decision).toBe('allow');
  });
});

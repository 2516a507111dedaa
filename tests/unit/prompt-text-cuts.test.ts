import { describe, expect, it } from 'vitest';
import { readCompletion } from '../../src-main/llm/completion';
import { Blackboard } from '../../src-main/memory/blackboard';
import { asData } from '../../src-main/prompter/messages';
import { renderDocs } from '../../src-main/prompter/retrieved-docs';
import { SafetyPolicy } from '../../src-main/commands/safety-policy';
import { validateAction } from '../../src-main/commands/validate-action';
import { SafetyConfig } from '../../src-main/host/config';

/** A lone half of a surrogate pair: JSON endpoints refuse the whole request for one ("no low surrogate in string"). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('text cut to fit a prompt', () => {
  // An emoji is two UTF-16 units: each text puts one across the cut.
  const across = (cutAt: number) => `${'a'.repeat(cutAt - 1)}🔥 and more after it`;

  it('never splits an emoji in data: window titles, outputs, errors', () => {
    expect(asData(across(120), 120)).not.toMatch(LONE_SURROGATE);
    expect(asData(across(120), 120)).toMatch(/^a+… \(cut\)$/);
  });

  it("never splits an emoji in the blackboard's lines", () => {
    const board = new Blackboard();
    board.addRequest(across(399));
    board.addQuestion(across(299), 'yes');
    const { text } = board.toPrompt({ budgetChars: 4_000, historyKeys: ['Step'], maxImages: 0 });
    expect(text).not.toMatch(LONE_SURROGATE);
  });

  it('never splits an emoji in a document', () => {
    expect(renderDocs([{ source: 'notes.md', text: across(1_500) }])).not.toMatch(LONE_SURROGATE);
  });

  it('never splits an emoji in what a reason or an error quotes: the model is told it in the next step', () => {
    const policy = new SafetyPolicy(SafetyConfig.parse({}));
    const held = policy.evaluate({ toolName: 'launch_app', args: { name: 'gedit', args: [`--title=${across(59).slice(8)}`] }, trustedTool: true, modelStatus: 'CONTINUE' });
    expect(held.reasons.join(' ')).toMatch(/with options/);
    expect(held.reasons.join(' ')).not.toMatch(LONE_SURROGATE);
    const unknown = validateAction(across(80), {}, new Set(['click']));
    expect(unknown.ok ? '' : unknown.error).not.toMatch(LONE_SURROGATE);
  });

  it("never splits an emoji in a model's refusal, quoted back to it in the repair request", () => {
    const { note } = readCompletion({ choices: [{ message: { content: null, refusal: across(200) }, finish_reason: 'stop' }] });
    expect(note).toMatch(/^the model refused: a+…$/);
  });
});

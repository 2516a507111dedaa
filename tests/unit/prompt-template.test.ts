import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_AGENT_PLACEHOLDERS } from '../../src-main/prompter/app-prompter';
import { compileTemplate, loadPromptFile } from '../../src-main/prompter/template';

describe('prompt templates', () => {
  it('fills placeholders in one pass, so values are never expanded again', () => {
    const template = compileTemplate('t', 'A {{request}} B', ['request']);
    expect(template.render({ request: '{{request}} x' })).toBe('A {{request}} x B');
  });

  it('refuses unknown and missing placeholders when loaded', () => {
    expect(() => compileTemplate('t', '{{request}} {{secret}}', ['request'])).toThrow(/unknown placeholder\(s\) \{\{secret\}\}/);
    expect(() => compileTemplate('t', 'nothing', ['request'])).toThrow(/missing placeholder\(s\) \{\{request\}\}/);
  });

  it('loads the shipped AppAgent prompt', () => {
    const templates = loadPromptFile('prompts/app_agent.yaml', APP_AGENT_PLACEHOLDERS);
    expect(templates.system.render({ tools: '- click(x, y)' })).toContain('- click(x, y)');
  });

  it('names the file and key of a broken prompt file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'deskhand-prompt-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'system: "{{tools}}"\n');
    expect(() => loadPromptFile(file, APP_AGENT_PLACEHOLDERS)).toThrow(/bad\.yaml: user: /);
  });
});

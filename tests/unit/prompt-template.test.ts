import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_PLACEHOLDERS as APP_AGENT_PLACEHOLDERS, loadPromptLibrary } from '../../src-main/prompter/prompt-library';
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

  it('loads every shipped prompt and example file', () => {
    const library = loadPromptLibrary('prompts');
    expect(library.app.system.render({ tools: '- click(x, y)', examples: library.examples.app })).toContain('- click(x, y)');
    expect(library.examples.host).toMatch(/^## Examples/);
    expect(library.shell.system.render({ shell: 'bash', tools: '', examples: '' })).toContain('ShellAgent');
  });

  it('names the file and key of a broken prompt file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'deskhand-prompt-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'system: "{{tools}} {{examples}}"\n');
    expect(() => loadPromptFile(file, APP_AGENT_PLACEHOLDERS)).toThrow(/bad\.yaml: system_as: /);
  });
});

import { describe, expect, it } from 'vitest';
import { DeskhandConfig } from '../../src-main/host/config';
import { settingsSchema } from '../../src-main/host/settings-store';
import { validateAgainstSchema } from '../../src-renderer/src/forms/schema-validator';

type Node = Record<string, unknown>;

function isObject(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every property of the schema, by its dotted path (through nullable alternatives, list items and union branches). */
function properties(node: unknown, path = ''): Array<[string, Node]> {
  if (!isObject(node)) return [];
  const found: Array<[string, Node]> = [];
  if (isObject(node.properties)) {
    for (const [key, value] of Object.entries(node.properties)) {
      const at = path ? `${path}.${key}` : key;
      if (isObject(value)) found.push([at, value], ...properties(value, at));
    }
  }
  if (isObject(node.items)) found.push(...properties(node.items, `${path}.0`));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (Array.isArray(branches)) for (const branch of branches) found.push(...properties(branch, path));
  }
  return found;
}

function at(path: string): Node {
  const match = properties(settingsSchema()).find(([where]) => where === path);
  if (!match) throw new Error(`no setting at ${path}`);
  return match[1];
}

describe('the settings schema the dialog is made from', () => {
  it('gives every setting a title in words, so the dialog and its messages name it as the user sees it', () => {
    const untitled = properties(settingsSchema())
      .filter(([, schema]) => typeof schema.title !== 'string' || schema.title.trim() === '')
      .map(([path]) => path);
    expect(untitled).toEqual([]);
    expect(at('limits.maxStepsPerRound').title).toBe('Max steps per round');
    expect(at('models.host.baseUrl').title).toBe('Base URL');
    expect(at('mcpServers').title).toBe('MCP servers');
    // Titles are words, not property names split at capitals.
    const codeLike = properties(settingsSchema())
      .map(([, schema]) => String(schema.title))
      .filter((title) => /\b(Ms|Url|Json|Mcp|Tok|Chars|Mb)\b/.test(title));
    expect(codeLike).toEqual([]);
  });

  it('offers the approval policy as labelled choices, each saying what it means, and stores the same words as before', () => {
    const confirmation = at('safety.confirmation');
    expect(confirmation.enum).toBeUndefined();
    expect(confirmation.oneOf).toEqual([
      { const: 'always', title: 'Before every action', description: expect.any(String) },
      { const: 'sensitive', title: 'Before risky actions only', description: expect.any(String) },
      { const: 'never', title: 'Never', description: expect.any(String) },
    ]);
    expect(confirmation.title).toBe('Ask for approval');
    // The field's own description has one line per choice, for the dialog (which shows no per-option text).
    const lines = String(confirmation.description).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^Before every action: /);
    expect(lines[1]).toMatch(/^Before risky actions only: /);
    expect(lines[2]).toMatch(/^Never: .*deny list/);
    expect(DeskhandConfig.parse({ safety: { confirmation: 'never' } }).safety.confirmation).toBe('never');
    expect(DeskhandConfig.safeParse({ safety: { confirmation: 'Never' } }).success).toBe(false);
  });

  it('labels the screenshot formats and the kinds of MCP server too', () => {
    const format = at('device.screenshotFormat');
    expect(format.enum).toBeUndefined();
    expect((format.oneOf as Node[]).map((choice) => choice.const)).toEqual(['auto', 'png', 'jpeg', 'webp']);
    expect((format.oneOf as Node[]).every((choice) => typeof choice.title === 'string' && choice.title !== choice.const)).toBe(true);
    const kinds = (at('mcpServers') as { items: { oneOf: Node[] } }).items.oneOf;
    expect(kinds.map((kind) => kind.title)).toEqual([expect.stringMatching(/program/i), expect.stringMatching(/URL/)]);
  });

  it('describes the settings whose effect a name alone does not tell', () => {
    for (const path of ['safety.confirmation', 'safety.confirmAllShellCommands', 'safety.denyCommandPatterns', 'agent.visual', 'limits.maxConsecutiveErrors', 'limits.minFreeDiskMb', 'prompt.blackboardBudgetChars', 'device.screenshotFormat', 'models.host.jsonMode', 'mcpServers.0.trusted', 'mcpServers.0.tokenSecret']) {
      expect(typeof at(path).description, path).toBe('string');
    }
  });

  it('points to a field by the name the dialog gives it', () => {
    const parsed = DeskhandConfig.safeParse({ mcpServers: [{ name: 'github', transport: 'http', url: 'https://me:secret@example.com/mcp' }] });
    const messages = parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
    expect(messages).toEqual([expect.stringContaining('Token variable')]);
    expect(messages.join(' ')).not.toContain('tokenSecret');
  });

  it('still checks values as before in the dialog’s own validator', () => {
    const schema = settingsSchema();
    const values = DeskhandConfig.parse({ safety: { confirmation: 'always' }, device: { screenshotFormat: 'webp' } });
    expect(validateAgainstSchema(schema, values)).toEqual([]);
    const wrong = validateAgainstSchema(schema, { ...values, safety: { ...values.safety, confirmation: 'sometimes' } });
    expect(wrong.map((error) => error.instancePath)).toContain('/safety/confirmation');
  });
});

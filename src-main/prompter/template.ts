import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;

export interface PromptTemplate {
  readonly name: string;
  render(values: Record<string, string>): string;
}

function placeholdersOf(text: string): Set<string> {
  return new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1] as string));
}

/**
 * A text with {{name}} placeholders, checked once when loaded: every placeholder must be one the code
 * fills, and every value the code fills must appear (a dropped placeholder is a silent prompt bug).
 */
export function compileTemplate(name: string, text: string, expected: readonly string[]): PromptTemplate {
  const found = placeholdersOf(text);
  const unknown = [...found].filter((placeholder) => !expected.includes(placeholder));
  const missing = expected.filter((placeholder) => !found.has(placeholder));
  if (unknown.length) throw new Error(`prompt template ${name}: unknown placeholder(s) ${unknown.map((p) => `{{${p}}}`).join(', ')}`);
  if (missing.length) throw new Error(`prompt template ${name}: missing placeholder(s) ${missing.map((p) => `{{${p}}}`).join(', ')}`);
  return {
    name,
    render(values) {
      // One pass, so a value that itself contains "{{x}}" (screen text, user text) is never expanded.
      return text.replace(PLACEHOLDER, (_whole, key: string) => {
        const value = values[key];
        if (value === undefined) throw new Error(`prompt template ${name}: no value for {{${key}}}`);
        return value;
      });
    },
  };
}

/** Reads a YAML prompt file whose top-level keys are template texts. */
export function loadPromptFile<K extends string>(
  path: string,
  placeholders: Record<K, readonly string[]>,
): Record<K, PromptTemplate> {
  let data: unknown;
  try {
    data = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read prompt file ${path}: ${(error as Error).message}`);
  }
  const keys = Object.keys(placeholders) as K[];
  const shape = z.object(Object.fromEntries(keys.map((key) => [key, z.string().min(1)])) as Record<K, z.ZodString>);
  const parsed = shape.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`prompt file ${path}: ${issue?.path.join('.') || '(top)'}: ${issue?.message}`);
  }
  const texts = parsed.data as Record<K, string>;
  return Object.fromEntries(
    keys.map((key) => [key, compileTemplate(`${path}#${key}`, texts[key], placeholders[key])]),
  ) as Record<K, PromptTemplate>;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { loadPromptFile, type PromptTemplate } from './template';

export const HOST_PLACEHOLDERS = {
  system: ['examples'],
  system_nonvisual: ['examples'],
  user: ['request', 'windows', 'agents', 'subtasks', 'history', 'blackboard', 'documents', 'feedback', 'screen'],
} as const;

export const APP_PLACEHOLDERS = {
  system: ['tools', 'examples'],
  system_as: ['tools', 'examples'],
  system_nonvisual: ['tools', 'examples'],
  user: ['request', 'subtask', 'target', 'notes', 'history', 'blackboard', 'documents', 'feedback', 'screen'],
} as const;

export const SHELL_PLACEHOLDERS = {
  system: ['shell', 'tools', 'examples'],
  user: ['request', 'subtask', 'notes', 'history', 'blackboard', 'feedback'],
} as const;

type Templates<P> = { [K in keyof P]: PromptTemplate };

export interface PromptLibrary {
  host: Templates<typeof HOST_PLACEHOLDERS>;
  app: Templates<typeof APP_PLACEHOLDERS>;
  shell: Templates<typeof SHELL_PLACEHOLDERS>;
  /** Rendered worked examples per agent, ready for the {{examples}} placeholder. */
  examples: { host: string; app: string; shell: string };
}

const ExampleFile = z.array(z.object({ request: z.string().min(1), reply: z.record(z.string(), z.unknown()) }).strict()).max(10);

function loadExamples(path: string): string {
  let data: unknown;
  try {
    data = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read prompt examples ${path}: ${(error as Error).message}`);
  }
  const parsed = ExampleFile.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`prompt examples ${path}: ${issue?.path.join('.') || '(top)'}: ${issue?.message}`);
  }
  if (!parsed.data.length) return '';
  const shown = parsed.data.map(
    (example, index) => `Example ${index + 1}. Request: ${example.request}\nReply: ${JSON.stringify(example.reply)}`,
  );
  return `## Examples\n${shown.join('\n\n')}`;
}

/** Loads and checks every prompt file at start-up, so a broken template is a clear start-up error. */
export function loadPromptLibrary(dir: string): PromptLibrary {
  return {
    host: loadPromptFile(join(dir, 'host_agent.yaml'), HOST_PLACEHOLDERS),
    app: loadPromptFile(join(dir, 'app_agent.yaml'), APP_PLACEHOLDERS),
    shell: loadPromptFile(join(dir, 'shell_agent.yaml'), SHELL_PLACEHOLDERS),
    examples: {
      host: loadExamples(join(dir, 'examples', 'host_agent.yaml')),
      app: loadExamples(join(dir, 'examples', 'app_agent.yaml')),
      shell: loadExamples(join(dir, 'examples', 'shell_agent.yaml')),
    },
  };
}

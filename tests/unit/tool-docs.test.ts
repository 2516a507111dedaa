import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolArgs } from '../../src-main/device/contract';
import { renderToolDocs } from '../../src-main/prompter/tool-docs';

const tool = (name: string, schema: z.ZodObject, description = '') => ({
  name,
  description,
  inputSchema: z.toJSONSchema(schema) as { type: 'object'; properties?: Record<string, object>; required?: string[] },
});

describe('renderToolDocs', () => {
  it('lists tools sorted, with optional arguments, enums, arrays and unions, and hides what it is told to', () => {
    const docs = renderToolDocs(
      [
        tool('launch_app', ToolArgs.launch_app, 'Start a program.'),
        tool('click', ToolArgs.click, 'Click at a point.'),
        tool('hotkey', ToolArgs.hotkey),
        tool('screenshot', ToolArgs.screenshot),
      ],
      new Set(['screenshot']),
    );
    expect(docs.split('\n')).toEqual([
      '- click(x: number, y: number, button?: left|right|middle, double?: boolean): Click at a point.',
      '- hotkey(keys: string[])',
      '- launch_app(name: string, args?: string[] | string): Start a program.',
    ]);
  });
});

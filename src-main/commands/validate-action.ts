import { randomUUID } from 'node:crypto';
import { issuesText } from '../common/zod-issues';
import { headOf } from '../common/text-head';
import { ACTION_TOOLS, isToolName, POINT_ARGS, ToolArgs } from '../device/contract';
import type { Command } from './command';

export type ValidatedCommand = { ok: true; command: Command } | { ok: false; error: string };

/**
 * Turns a model-chosen function and arguments into a Command, or a clear error. Nothing reaches the
 * device client without passing here: unknown tools and bad arguments never run.
 */
/** The most an external tool's arguments may weigh; its own server checks their shape. */
export const MAX_EXTERNAL_ARGS_BYTES = 64 * 1024;

export function validateAction(
  functionName: string,
  args: Record<string, unknown>,
  available: ReadonlySet<string>,
): ValidatedCommand {
  if (!available.has(functionName)) {
    const names = [...available].sort().join(', ');
    return { ok: false, error: `unknown tool '${headOf(functionName, 80)}'; available tools: ${names}` };
  }
  if (!isToolName(functionName)) {
    // A tool of an external MCP server the user added: its server validates the arguments.
    const size = Buffer.byteLength(JSON.stringify(args), 'utf8');
    if (size > MAX_EXTERNAL_ARGS_BYTES) return { ok: false, error: `arguments for ${functionName} are ${size} bytes; at most ${MAX_EXTERNAL_ARGS_BYTES}` };
    return { ok: true, command: { toolName: functionName, parameters: args, toolType: 'action', callId: randomUUID() } };
  }
  const checked = ToolArgs[functionName].safeParse(args);
  if (!checked.success) {
    return { ok: false, error: `invalid arguments for ${functionName}: ${issuesText(checked.error, { root: 'arguments', max: 5 })}` };
  }
  const half = halfPoint(checked.data as Record<string, unknown>);
  if (half) return { ok: false, error: `invalid arguments for ${functionName}: give both ${half}, or neither` };
  return {
    ok: true,
    command: {
      toolName: functionName,
      parameters: checked.data as Record<string, unknown>,
      toolType: ACTION_TOOLS.has(functionName) ? 'action' : 'data_collection',
      callId: randomUUID(),
    },
  };
}

/** A point given by one coordinate only ("x and y"), which the device refuses; null when none is. */
function halfPoint(args: Record<string, unknown>): string | null {
  const pair = POINT_ARGS.find(([x, y]) => (args[x] === undefined) !== (args[y] === undefined));
  return pair ? `${pair[0]} and ${pair[1]}` : null;
}

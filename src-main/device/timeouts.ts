import type { ToolArgsOf, ToolName } from './contract';

/**
 * How long each device tool may run. Pure, so the host can give its MCP request a matching timeout:
 * `client.callTool(params, undefined, { timeout: toolTimeoutMs(name, args) + HOST_MARGIN_MS })`.
 * The SDK's default request timeout (60 s) is shorter than a long type_text or a 60 s wait.
 */

/** xdotool's pause between keystrokes. */
export const TYPING_DELAY_MS = 8;

/** Slack for the host's side: process scheduling and the JSON-RPC round trip. */
export const HOST_MARGIN_MS = 5_000;

const BASE_MS = 10_000;

/** execute_command's timeout when the call gives none. */
export const DEFAULT_COMMAND_TIMEOUT_S = 60;

/** How long launch_app waits for the new program's first window before reporting none. */
export const LAUNCH_WINDOW_WAIT_MS = 15_000;

/** Budget for typing `text` (about three times what xdotool needs at TYPING_DELAY_MS per key). */
export function typingBudgetMs(text: string): number {
  return BASE_MS + [...text].length * TYPING_DELAY_MS * 3;
}

export function toolTimeoutMs<N extends ToolName>(name: N, args: ToolArgsOf<N>): number;
export function toolTimeoutMs(name: ToolName, args: Record<string, unknown>): number {
  switch (name) {
    case 'screenshot':
    case 'list_windows':
      return 15_000;
    case 'type_text':
      return BASE_MS + typingBudgetMs(typeof args.text === 'string' ? args.text : '');
    case 'wait':
      return (typeof args.seconds === 'number' ? args.seconds * 1000 : 0) + BASE_MS;
    case 'execute_command':
      return (typeof args.timeout_s === 'number' ? args.timeout_s : DEFAULT_COMMAND_TIMEOUT_S) * 1000 + BASE_MS;
    case 'launch_app':
      return LAUNCH_WINDOW_WAIT_MS + BASE_MS;
    default:
      return BASE_MS;
  }
}

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ScreenshotMeta } from '../device/contract';
import type { Command, CommandResult } from './command';
import type { DeviceConnection } from './device-connection';

export interface CapturedScreenshot {
  bytes: Buffer;
  meta: ScreenshotMeta;
}

function textOf(result: CallToolResult): string {
  return result.content
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs validated Commands on the device client and reports each as a Result; never throws for a tool failure. */
export class Dispatcher {
  constructor(private readonly device: DeviceConnection) {}

  async availableTools(): Promise<Set<string>> {
    return new Set((await this.device.tools()).map((tool) => tool.name));
  }

  async run(command: Command, signal?: AbortSignal): Promise<CommandResult> {
    const started = performance.now();
    const elapsed = (): number => performance.now() - started;
    try {
      const result = await this.device.callTool(command.toolName, command.parameters, signal);
      const text = textOf(result);
      if (result.isError) return { status: 'failure', result: '', error: text || 'the tool failed', durationMs: elapsed() };
      return { status: 'success', result: text, error: null, durationMs: elapsed() };
    } catch (error) {
      return { status: 'failure', result: '', error: `${command.toolName} failed: ${errorMessage(error)}`, durationMs: elapsed() };
    }
  }

  /** Marks the rest of an action sequence as not run after a failure. */
  skipped(): CommandResult {
    return { status: 'skipped', result: '', error: 'skipped after an earlier action failed', durationMs: 0 };
  }

  async screenshot(signal?: AbortSignal): Promise<CapturedScreenshot> {
    const result = await this.device.callTool('screenshot', {}, signal);
    if (result.isError) throw new Error(`screenshot failed: ${textOf(result) || 'no detail'}`);
    const image = result.content.find((part) => part.type === 'image');
    if (!image || image.type !== 'image') throw new Error('screenshot failed: the device client sent no image');
    const meta = ScreenshotMeta.safeParse(result.structuredContent);
    if (!meta.success) throw new Error(`screenshot failed: bad geometry from the device client (${meta.error.message})`);
    return { bytes: Buffer.from(image.data, 'base64'), meta: meta.data };
  }
}

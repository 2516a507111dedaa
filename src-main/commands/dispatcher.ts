import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  ACTION_TOOLS,
  DESKTOP_BLIND_TOOLS,
  EXPECT_KEYBOARD_META,
  EXPECT_POINTER_META,
  EXPECT_SCREENSHOT_META,
  keyboardElsewhereRefusalOf,
  leavesPointerAlone,
  pointsOf,
  pointerMovedRefusalOf,
  ScreenshotMeta,
  screenResizedRefusalOf,
  WindowInfo,
  type ExpectKeyboard,
  type ScreenSize,
  type ToolName,
} from '../device/contract';
import { headOf } from '../common/text-head';
import type { Command, CommandResult } from './command';
import type { DeviceConnection } from './device-connection';
import { ExternalToolError, type ExternalServers } from './external-servers';
import { pointerFromResult, screenSizeFromResult, TakeoverGuard, type ScreenPoint, type TakeoverCheck } from './takeover';

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

type ResultPart = CallToolResult['content'][number];

/** What a part the agent cannot read is, in words (the model only ever gets text from a tool). */
function partText(part: ResultPart): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type === 'image' ? 'an image' : 'audio'} (${part.mimeType}), not passed on to the agent]`;
    case 'resource':
      return 'text' in part.resource ? part.resource.text : `[a resource, ${part.resource.uri}, not passed on to the agent]`;
    case 'resource_link':
      return `[a link to ${part.uri}]`;
    default:
      return '';
  }
}

/**
 * An external tool's result as text: every part said (an image-only result used to read as an empty
 * "done"), or its structured content when it sent nothing else.
 */
function externalText(result: CallToolResult): string {
  const text = result.content.map(partText).filter(Boolean).join('\n');
  if (text || result.structuredContent === undefined) return text;
  return JSON.stringify(result.structuredContent);
}

/** The most of an external tool's text result kept (as much as the device keeps of a command's output). */
export const MAX_EXTERNAL_RESULT_CHARS = 64 * 1024;

/** An external server's text, cut to MAX_EXTERNAL_RESULT_CHARS: it is stored with the step and sent in its events. */
function bounded(text: string): string {
  if (text.length <= MAX_EXTERNAL_RESULT_CHARS) return text;
  // Never inside an emoji: the latest step's end is shown to the model, and half of one voids the request.
  const kept = headOf(text, MAX_EXTERNAL_RESULT_CHARS);
  const cut = text.length - kept.length;
  return `${kept}\n… (${cut.toLocaleString('en-US')} more characters of the result were cut)`;
}

/**
 * A pointer report at most this old is as good as asking the device again. The reports that matter
 * come back with every screenshot and action, and each action is checked on the device anyway.
 */
export const FRESH_POINTER_MS = 100;

/** The screenshot an action's points are pixels of, for the device to check (EXPECT_SCREENSHOT_META). */
function screenshotMeta(command: Command): Record<string, unknown> | undefined {
  if (!command.screenshotId || pointsOf(command.parameters).length === 0) return undefined;
  return { [EXPECT_SCREENSHOT_META]: { id: command.screenshotId } };
}

/** A pointer position a device result reported, and the screen's size when the result said it too. */
interface PointerSeen {
  point: ScreenPoint;
  screenSize: ScreenSize | null;
}

const STOPPED_WHILE_RUNNING = 'stopped while it ran: the run was stopped';

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs validated Commands on the device client and reports each as a Result; never throws for a tool
 * failure. It also watches the pointer (every device result reports it) for the takeover check: where
 * the agent's actions left it versus where it is when the next step looks at the screen.
 */
export class Dispatcher {
  readonly takeover = new TakeoverGuard();
  /** The latest pointer position any device result reported, and when. */
  private lastPointer: (PointerSeen & { at: number }) | null = null;
  /** How many inputs the device refused because the keyboard was in another application's window. */
  keyboardRefusals = 0;

  constructor(
    private readonly device: DeviceConnection,
    /** The user's own MCP servers; their tools are named `<server>.<tool>`. */
    private readonly externals: ExternalServers | null = null,
  ) {}

  /**
   * Runs one command. `keyboard`: the application the input was judged for; the device refuses the
   * input if it would reach another (EXPECT_KEYBOARD_META).
   */
  async run(command: Command, signal?: AbortSignal, keyboard: ExpectKeyboard | null = null): Promise<CommandResult> {
    const started = performance.now();
    const elapsed = (): number => performance.now() - started;
    try {
      if (this.externals?.handles(command.toolName)) {
        const result = await this.externals.callTool(command.toolName, command.parameters, signal);
        const text = bounded(externalText(result));
        if (result.isError) return { status: 'failure', result: '', error: text || 'the tool failed', durationMs: elapsed() };
        return { status: 'success', result: text, error: null, durationMs: elapsed() };
      }
      const tool = command.toolName as ToolName;
      const acts = ACTION_TOOLS.has(tool);
      // Once the user has the mouse, nothing more runs (the rest of a sequence included) until resumed.
      if (acts && this.takeover.paused) {
        return { status: 'failure', result: '', error: `not run: ${this.takeover.check(null).message}`, durationMs: elapsed(), takenOver: true };
      }
      const meta = {
        ...(acts ? this.expectPointerMeta() : undefined),
        ...(keyboard ? { [EXPECT_KEYBOARD_META]: keyboard } : undefined),
        ...screenshotMeta(command),
      };
      const result = await this.device.callTool(tool, command.parameters, signal, Object.keys(meta).length ? meta : undefined);
      const text = textOf(result);
      const moved = result.isError ? pointerMovedRefusalOf(result._meta) : null;
      if (moved) {
        const seen = this.checkSeen(this.noted(moved.pointer.screen));
        return { status: 'failure', result: '', error: `not run: ${seen.message || text}`, durationMs: elapsed(), takenOver: true };
      }
      if (result.isError && keyboardElsewhereRefusalOf(result._meta)) {
        this.keyboardRefusals++;
        return { status: 'failure', result: '', error: text, durationMs: elapsed() };
      }
      if (result.isError) return { status: 'failure', result: '', error: text || 'the tool failed', durationMs: elapsed() };
      const pointer = this.notedFrom(result.structuredContent);
      if (acts && !DESKTOP_BLIND_TOOLS.has(tool)) {
        if (leavesPointerAlone(tool, command.parameters)) this.checkSeen(pointer);
        else this.takeover.agentLeftPointerAt(pointer?.point ?? null);
      }
      return { status: 'success', result: text, error: null, durationMs: elapsed(), ...(result.structuredContent ? { structured: result.structuredContent } : {}) };
    } catch (error) {
      // Stop aborts the call: the MCP client's own abort error would only say that in its words.
      if (signal?.aborted) return { status: 'failure', result: '', error: STOPPED_WHILE_RUNNING, durationMs: elapsed() };
      // An external server's errors name the tool already ("notes.echo failed: …", "cannot connect to …").
      const why = error instanceof ExternalToolError ? error.message : `${command.toolName} failed: ${errorMessage(error)}`;
      return { status: 'failure', result: '', error: why, durationMs: elapsed() };
    }
  }

  /** Marks the rest of an action sequence as not run: after a failure, or (`stopped`) after Stop. */
  skipped(stopped = false): CommandResult {
    return { status: 'skipped', result: '', error: stopped ? 'not run: the run was stopped' : 'skipped after an earlier action failed', durationMs: 0 };
  }

  async screenshot(signal?: AbortSignal, windowId?: string): Promise<CapturedScreenshot> {
    const args = windowId ? { window_id: windowId } : {};
    let result = await this.device.callTool('screenshot', args, signal);
    if (result.isError && screenResizedRefusalOf(result._meta)) {
      // The screen changed size: a new device client sees it as it is now.
      await this.device.restart();
      result = await this.device.callTool('screenshot', args, signal);
    }
    if (result.isError) throw new Error(`screenshot failed: ${textOf(result) || 'no detail'}`);
    const image = result.content.find((part) => part.type === 'image');
    if (!image || image.type !== 'image') throw new Error('screenshot failed: the device client sent no image');
    const meta = ScreenshotMeta.safeParse(result.structuredContent);
    if (!meta.success) throw new Error(`screenshot failed: bad geometry from the device client (${meta.error.message})`);
    this.checkSeen(this.notedFrom(result.structuredContent));
    return { bytes: Buffer.from(image.data, 'base64'), meta: meta.data };
  }

  /**
   * Has the user moved the pointer away from where the agent left it? Asks the device where it is,
   * unless a result reported it within FRESH_POINTER_MS.
   */
  async checkTakeover(signal?: AbortSignal): Promise<TakeoverCheck> {
    if (this.takeover.paused || !this.takeover.lastAgentPointer) return this.takeover.check(null);
    const fresh = this.lastPointer && performance.now() - this.lastPointer.at <= FRESH_POINTER_MS ? this.lastPointer : null;
    return this.checkSeen(fresh ?? (await this.pointer(signal)));
  }

  /** The device checks an action against this (EXPECT_POINTER_META): where the agent left the pointer. */
  private expectPointerMeta(): Record<string, unknown> | undefined {
    const expected = this.takeover.lastAgentPointer;
    if (!expected || this.takeover.paused) return undefined;
    return { [EXPECT_POINTER_META]: { x: expected.x, y: expected.y, tolerance: this.takeover.tolerance } };
  }

  /** Keeps a reported pointer position (and the screen's size, if reported with it) as the latest, and passes it on. */
  private noted(point: ScreenPoint | null, screenSize: ScreenSize | null = null): PointerSeen | null {
    if (!point) return null;
    this.lastPointer = { point, screenSize, at: performance.now() };
    return { point, screenSize };
  }

  /** The pointer a device result reported, noted as the latest. */
  private notedFrom(structuredContent: unknown): PointerSeen | null {
    return this.noted(pointerFromResult(structuredContent), screenSizeFromResult(structuredContent));
  }

  /** The takeover check on a reported pointer: a screen that shrank under it may have moved it (TakeoverGuard). */
  private checkSeen(seen: PointerSeen | null): TakeoverCheck {
    return this.takeover.check(seen?.point ?? null, seen?.screenSize ?? null);
  }

  /**
   * After the user was involved (answered, approved, resumed), where the pointer is now becomes the
   * reference: moving the mouse to click Approve is not a takeover.
   */
  async rebasePointer(signal?: AbortSignal): Promise<void> {
    this.takeover.resume((await this.pointer(signal).catch(() => null))?.point ?? null);
  }

  /** Where the pointer is; null when the device cannot say (the next screenshot will surface a dead device). */
  private async pointer(signal?: AbortSignal): Promise<PointerSeen | null> {
    try {
      const result = await this.device.callTool('pointer', {}, signal);
      return result.isError ? null : this.notedFrom(result.structuredContent);
    } catch {
      return null;
    }
  }

  /** The open windows, checked: a device that answers something else is an error, not an empty list. */
  async listWindows(signal?: AbortSignal): Promise<WindowInfo[]> {
    const result = await this.device.callTool('list_windows', {}, signal);
    if (result.isError) throw new Error(`listing windows failed: ${textOf(result) || 'no detail'}`);
    const structured = result.structuredContent as { windows?: unknown } | undefined;
    let data: unknown = structured?.windows;
    if (data === undefined) {
      try {
        data = JSON.parse(textOf(result));
      } catch {
        throw new Error('listing windows failed: the device client sent no window list');
      }
    }
    const windows = z.array(WindowInfo.passthrough()).safeParse(data);
    if (!windows.success) throw new Error(`listing windows failed: bad data from the device client (${windows.error.message})`);
    return windows.data.map(({ id, title, app, bounds }) => ({ id, title, app, bounds }));
  }
}

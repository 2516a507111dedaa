import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { abortableSleep, throwIfAborted } from './abort';
import { launchApp } from './apps';
import { splitArgs } from './split-args';
import type { DeviceConfig } from './config';
import {
  ACTION_TOOLS,
  CommandOutput,
  expectedKeyboardOf,
  expectedPointerOf,
  expectedScreenshotOf,
  keyboardElsewhereResult,
  LaunchResult,
  PointerReport,
  pointerMoved,
  pointerMovedResult,
  pointsOf,
  screenResizedResult,
  ScreenshotMeta,
  ScreenSize,
  sendsInput,
  ToolArgs,
  type ExpectKeyboard,
  type ExpectPointer,
  type ExpectScreenshot,
  type ScreenResizedRefusal,
  type ToolArgsOf,
  type ToolName,
} from './contract';
import { identityGeometry, imageToScreen, screenToImage, visibleParts, type Point, type Rect, type ScreenshotGeometry } from './coords';
import { screenChange, screenChangedMessage, type ShotSource, type TakenGeometry } from './screen-change';
import { otherScreenshot, otherScreenshotMessage, ShotIds } from './shot-ids';
import { KeyboardCheck, KeyboardElsewhereError } from './keyboard-check';
import { DisplayNotFoundError, listDisplays, offMonitorsMessage, onAMonitor, pickDisplay } from './displays';
import { click, drag, moveTo, pointerPosition, pressChord, scroll } from './input';
import { parseKeys } from './keys';
import { SerialQueue } from './queue';
import { BandedPngEncoders } from './png-bands';
import { WhenIdle } from './when-idle';
import { captureScreenshot, liveScreenSize, screenSize } from './screen';
import { runShellCommand } from './shell';
import { CommandRecord } from './command-record';
import { DEFAULT_COMMAND_TIMEOUT_S, toolTimeoutMs } from './timeouts';
import { normaliseNewlines, typeText } from './typing';
import { focusWindow, getWindow, listWindows, monitorBounds, UnsupportedError, windowAt, windowBounds, WindowNotFoundError, type DesktopWindow } from './windows';

export const DEVICE_SERVER_NAME = 'deskhand-device';
export const DEVICE_SERVER_VERSION = '0.1.0';


/** The takeover check's outcome: its refusal, and the screen's size when the check read it. */
interface PointerCheck {
  refusal: CallToolResult | null;
  screenSize: ScreenSize | null;
}
const POINTER_WHERE_LEFT: PointerCheck = { refusal: null, screenSize: null };

/** Failures are always worth a line; successes only when debugging. */
export type Logger = (level: 'debug' | 'error', message: string) => void;

function text(message: string, structured?: Record<string, unknown>): CallToolResult {
  return structured
    ? { content: [{ type: 'text', text: message }], structuredContent: structured }
    : { content: [{ type: 'text', text: message }] };
}

/**
 * What a call had done so far, in words, for when it fails part way: a type_text that timed out, was
 * cancelled or lost its typing program tells the model how much of the text is already in the window.
 */
interface CallProgress {
  done: string | null;
}

function withProgress(error: unknown, progress: CallProgress): unknown {
  if (!progress.done) return error;
  return `${error instanceof Error ? error.message : String(error)}; ${progress.done}`;
}

/** Thrown by a screenshot this process cannot take as the screen is now (SCREEN_RESIZED_META). */
class ScreenResizedError extends Error {
  override name = 'ScreenResizedError';
  constructor(readonly refusal: ScreenResizedRefusal) {
    super('the screen changed size since the device client started');
  }
}

function toolError(name: string, error: unknown): CallToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text: `${name} failed: ${message}` }], isError: true };
}

const LOOKS: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
/** Changes the desktop but cannot by itself destroy anything. */
const NUDGES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
const ACTS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, openWorldHint: false };

const DESCRIPTIONS: Record<ToolName, string> = {
  screenshot:
    'Capture the screen, one window (window_id from list_windows) or one monitor (display from list_displays) ' +
    'as an image. Coordinates given to click, move, drag, scroll and type_text are pixels of the most recent screenshot.',
  click: 'Click at (x, y), pixels of the last screenshot. button: left (default), right or middle; double: double-click.',
  move: 'Move the mouse pointer to (x, y), pixels of the last screenshot.',
  drag: 'Press the left button at (from_x, from_y), move to (to_x, to_y) and release; pixels of the last screenshot.',
  scroll: 'Scroll the wheel at (x, y) in a direction (up, down, left, right) by amount notches (default 5).',
  type_text:
    'Type text into the focused control, exactly as given (any characters; "\\n" presses Enter, "\\t" Tab; ' +
    'text with another control character, such as ESC, is refused: press keys with hotkey). ' +
    'If x and y are given, click there first to focus. method: auto (default; long text is pasted), type ' +
    '(key presses only) or paste (through the clipboard, which keeps the text).',
  hotkey:
    'Press a key or key combination, e.g. ["ctrl","s"], ["enter"], ["alt","f4"]. Names: ctrl, alt, shift, meta, ' +
    'enter, tab, esc, backspace, delete, space, arrows up/down/left/right, home, end, pageup, pagedown, f1..f12, ' +
    'or a single character.',
  wait: 'Wait for the given number of seconds (at most 60), e.g. for an application to load.',
  list_windows: 'List the open top-level windows: id, title, app and bounds (screen coordinates), topmost first.',
  list_displays: 'List the monitors: index (for screenshot display), name, primary, bounds (screen coordinates).',
  pointer: 'Report where the mouse pointer is: screen coordinates, and pixels of the last screenshot (null if outside).',
  launch_app:
    'Start an application by program name ("mousepad", "xterm", "chromium"), path, or its menu name ' +
    '("Text Editor"), with optional args (list, or one string split like a shell); returns its new window ' +
    '(only a window of that program: new windows of other programs are listed apart in other_windows).',
  focus_window: 'Bring a window (id from list_windows) to the front and give it the keyboard focus.',
  execute_command:
    'Run a shell command (bash; PowerShell on Windows) in cwd (default: home) and return exit_code, stdout, ' +
    `stderr (each capped, truncated: true when cut) and timed_out. timeout_s (default ${DEFAULT_COMMAND_TIMEOUT_S}) ` +
    'kills the command and everything it started. stdin is empty.',
};

export interface DeviceServerOptions {
  config: DeviceConfig;
  log?: Logger;
  /** Why there is no screen to use (no X display): only the tools that need none are offered. */
  noDisplay?: string;
}

/**
 * Quiet time after the last call before the last screenshots are compressed again: the host asks the
 * model right after a screenshot, and a model takes far longer than this to answer.
 */
const REFINE_AFTER_IDLE_MS = 150;

/** What a device without a screen still offers: shell mode needs nothing else. */
const SCREENLESS_TOOLS: ReadonlySet<ToolName> = new Set(['execute_command']);

export function createDeviceServer({ config, log = () => undefined, noDisplay }: DeviceServerOptions): McpServer {
  /** Whether any window is Deskhand's own: the desktop app passes --protect-pid, browser mode --protect-title. */
  const protects = config.protectPid !== undefined || config.protectTitle !== undefined;
  const isProtected = (window: Pick<DesktopWindow, 'pid' | 'title'>): boolean =>
    (config.protectPid !== undefined && window.pid === config.protectPid) ||
    (config.protectTitle !== undefined && window.title.includes(config.protectTitle));
  // The running commands, for the host to end should this client be killed (launch_app's programs are not in it).
  const commandRecord = config.commandRecordDir ? new CommandRecord(config.commandRecordDir, (message) => log('error', message)) : undefined;
  const server = new McpServer(
    { name: DEVICE_SERVER_NAME, version: DEVICE_SERVER_VERSION },
    {
      capabilities: { tools: {} },
      instructions: noDisplay
        ? `Deskhand device client without a screen, so only execute_command is offered: ${noDisplay}`
        : 'Deskhand device client: sees and drives this computer. Take a screenshot first; coordinates are ' +
          'pixels of the most recent screenshot.',
    },
  );
  const queue = new SerialQueue();
  const pngEncoders = new BandedPngEncoders();
  // While the agent waits for the model, the last screenshots' unchanged bands are compressed better.
  const idle = new WhenIdle(REFINE_AFTER_IDLE_MS, (busy) => pngEncoders.refine(busy), (error) =>
    log('error', `compressing the last screenshot again failed: ${error instanceof Error ? error.message : String(error)}`),
  );
  const shotIds = new ShotIds();
  /** The last screenshot's mapping, and its id (ScreenshotMeta.id). */
  let geometry: (TakenGeometry & { id: string }) | null = null;

  const currentGeometry = async (): Promise<ScreenshotGeometry> => {
    if (geometry) return geometry;
    const size = await liveScreenSize();
    return identityGeometry(size.width, size.height);
  };
  /** The area a screenshot of `source` shows now: a window's or monitor's bounds, null for the whole screen. */
  const regionOf = async (source: ShotSource): Promise<Rect | null> => {
    if (source.kind === 'window') return windowBounds(source.id);
    if (source.kind === 'display') return pickDisplay(await listDisplays(liveScreenSize), source.index).bounds;
    return null;
  };
  /** Where a window or monitor a screenshot showed is now; null when it is gone (or for the whole screen). */
  const boundsNow = async (source: ShotSource): Promise<Rect | null> => {
    try {
      return await regionOf(source);
    } catch (error) {
      if (error instanceof WindowNotFoundError || error instanceof DisplayNotFoundError) return null;
      throw error;
    }
  };
  /**
   * An action at a point of the last screenshot is refused when that point is no longer where it was:
   * the screen changed size, or the window (monitor) the screenshot showed moved or changed size. The
   * screen's size costs one request on the open X connection; a window's bounds, one more batch.
   */
  const refusalIfScreenChanged = async (name: ToolName, args: Record<string, unknown>): Promise<CallToolResult | null> => {
    const taken = geometry;
    if (!taken || pointsOf(args).length === 0) return null;
    const [screenNow, bounds] = await Promise.all([liveScreenSize(), boundsNow(taken.source)]);
    const change = screenChange(taken, { screen: screenNow, bounds });
    return change ? { content: [{ type: 'text', text: screenChangedMessage(name, change) }], isError: true } : null;
  };
  /**
   * An action at a point names the screenshot its pixels are of (EXPECT_SCREENSHOT_META): refused unless
   * that is the last one, through whose geometry the point would be mapped. No X request.
   */
  const refusalIfOtherScreenshot = (name: ToolName, args: Record<string, unknown>, expected: ExpectScreenshot | null): CallToolResult | null => {
    if (!expected || pointsOf(args).length === 0) return null;
    const why = otherScreenshot(shotIds, expected.id, geometry?.id ?? null);
    return why ? { content: [{ type: 'text', text: otherScreenshotMessage(name, why) }], isError: true } : null;
  };
  const toScreen = async (x: number, y: number): Promise<Point> => imageToScreen(await currentGeometry(), { x, y });
  /** Where the pointer is now (PointerReport), for the host's takeover check. */
  const pointerReport = async (): Promise<{ pointer: PointerReport }> => {
    const screen = await pointerPosition();
    return { pointer: { screen, image: screenToImage(await currentGeometry(), screen) } };
  };
  /**
   * The takeover check for an action (EXPECT_POINTER_META): a refusal if the pointer has left where the
   * agent put it. A pointer that cannot be read does not stop the action; the next result says so. A
   * screen that shrank under the pointer had the X server move it inside, to where the agent's point is
   * clamped: not a takeover. The screen's size is one more X request, so it is read only when the
   * pointer looks moved, and goes back with the result for the host's own check.
   */
  const checkPointer = async (name: ToolName, expected: ExpectPointer | null): Promise<PointerCheck> => {
    if (!expected) return POINTER_WHERE_LEFT;
    const report = await pointerReport().catch(() => null);
    if (!report || !pointerMoved(expected, report.pointer.screen)) return POINTER_WHERE_LEFT;
    const screenSize = await liveScreenSize().catch(() => null);
    const moved = !screenSize || pointerMoved(expected, report.pointer.screen, screenSize);
    return { refusal: moved ? pointerMovedResult(name, expected, report.pointer) : null, screenSize };
  };
  /**
   * What shows of Deskhand's own windows, in logical screen coordinates, for screenshots to paint over.
   * Without an EWMH window manager (or X11) there is no window list to find them in, and nothing to hide.
   */
  const protectedAreas = async (): Promise<Rect[]> => {
    try {
      return visibleParts(await listWindows(), isProtected);
    } catch (error) {
      if (error instanceof UnsupportedError) return [];
      throw new Error(`cannot tell where Deskhand's own window is, so no screenshot is taken: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  /**
   * The keyboard check (EXPECT_KEYBOARD_META) before anything is sent: where the input goes (the window
   * at its point, else the active one) must belong to the program the host judged it for. Unlike the
   * pointer, a window that cannot be read stops the input: it is held because of where it might go.
   * type_text checks again before every piece it types (see its handler).
   */
  const keyboardCheckFor = (expected: ExpectKeyboard | null): KeyboardCheck | null =>
    expected ? new KeyboardCheck(expected, isProtected) : null;
  const pointOf = async (args: Record<string, unknown>): Promise<Point | null> =>
    typeof args.x === 'number' && typeof args.y === 'number' ? toScreen(args.x, args.y) : null;

  /**
   * An action at a point no monitor shows (between monitors of different sizes, inside the screen's
   * rectangle) is refused before anything moves: nothing is there to act on (a whole-screen screenshot
   * is black there), and the X server may hold the pointer at the edge of the monitor it comes from,
   * so the action would land where nobody pointed. One RandR request per action.
   */
  const refusalIfOffMonitors = async (name: ToolName, args: Record<string, unknown>): Promise<CallToolResult | null> => {
    const points = ACTION_TOOLS.has(name) ? pointsOf(args) : [];
    if (points.length === 0) return null;
    const monitors = await monitorBounds();
    if (!monitors || monitors.length === 0) return null;
    for (const point of points) {
      const screen = await toScreen(point.x, point.y);
      if (!onAMonitor(screen, monitors)) return toolError(name, offMonitorsMessage(point, screen, monitors));
    }
    return null;
  };

  /**
   * Deskhand's own windows are out of reach of the pointer too: an action at a point on one (its window
   * overlapping the agent's, say) is refused before anything moves. Only when there is a window to
   * protect, since it lists the windows once per action.
   */
  const refusalIfOnDeskhand = async (name: ToolName, args: Record<string, unknown>): Promise<CallToolResult | null> => {
    if (!protects || !ACTION_TOOLS.has(name)) return null;
    for (const point of pointsOf(args)) {
      const target = await windowAt(await toScreen(point.x, point.y));
      if (target && isProtected(target)) {
        return toolError(name, `(${point.x}, ${point.y}) is on Deskhand's own window: the agent does not act on it`);
      }
    }
    return null;
  };

  function register<N extends ToolName>(
    name: N,
    annotations: ToolAnnotations,
    run: (args: ToolArgsOf<N>, signal: AbortSignal, keyboard: KeyboardCheck | null, progress: CallProgress) => Promise<CallToolResult>,
    outputSchema?: z.ZodObject,
  ): void {
    // Native screen and input code dereferences the missing display and crashes: never load it then.
    if (noDisplay && !SCREENLESS_TOOLS.has(name)) return;
    const schema = ToolArgs[name];
    // Widened so the SDK's conditional callback type resolves for a generic tool name.
    const inputSchema: z.ZodType<unknown> = schema;
    server.registerTool(
      name,
      {
        description: DESCRIPTIONS[name],
        inputSchema,
        annotations,
        // The SDK publishes output schemas without additional properties; every result adds the pointer.
        ...(outputSchema ? { outputSchema: outputSchema.extend({ pointer: PointerReport.optional(), screenSize: ScreenSize.optional() }) } : {}),
      },
      async (args, extra): Promise<CallToolResult> => {
        // The SDK has validated already; parsing again keeps the types honest at this boundary.
        const parsed = schema.safeParse(args);
        if (!parsed.success) return toolError(name, parsed.error.issues.map((i) => i.message).join('; '));
        const data = parsed.data as ToolArgsOf<N>;
        let expected: ExpectPointer | null;
        let expectedShot: ExpectScreenshot | null;
        let keyboard: KeyboardCheck | null;
        try {
          expected = ACTION_TOOLS.has(name) ? expectedPointerOf(extra._meta) : null;
          expectedShot = expectedScreenshotOf(extra._meta);
          const expectedKeyboard = expectedKeyboardOf(extra._meta);
          if (expectedKeyboard && !sendsInput(name, data)) throw new Error(`${name} sends no keyboard input to check`);
          keyboard = keyboardCheckFor(expectedKeyboard);
        } catch (error) {
          return toolError(name, error);
        }
        const started = performance.now();
        const progress: CallProgress = { done: null };
        idle.callStarted();
        try {
          const result = await queue.run(
            async (signal) => {
              const pointer = await checkPointer(name, expected);
              const refused =
                pointer.refusal ??
                refusalIfOtherScreenshot(name, data, expectedShot) ??
                (await refusalIfScreenChanged(name, data)) ??
                (await refusalIfOffMonitors(name, data)) ??
                (await refusalIfOnDeskhand(name, data));
              if (refused) return refused;
              await keyboard?.ensure(await pointOf(data));
              // The checks take X round trips: a Stop meanwhile must not let the action begin.
              throwIfAborted(signal);
              return withPointer(await run(data, signal, keyboard, progress), pointer.screenSize);
            },
            { timeoutMs: toolTimeoutMs(name, data), label: name, signal: extra.signal },
          );
          log('debug', `${name} ok in ${Math.round(performance.now() - started)} ms`);
          return result;
        } catch (error) {
          if (error instanceof KeyboardElsewhereError) return keyboardElsewhereResult(name, error.refusal);
          if (error instanceof ScreenResizedError) return screenResizedResult(name, error.refusal);
          const reported = withProgress(error, progress);
          log('error', `${name} failed: ${reported instanceof Error ? reported.message : String(reported)}`);
          return toolError(name, reported);
        } finally {
          idle.callEnded();
        }
      },
    );
  }

  /**
   * Every result carries the pointer (PointerReport), so the host can notice the user taking the mouse;
   * and the screen's size, when the call read it anyway.
   */
  const withPointer = async (result: CallToolResult, screenSize: ScreenSize | null): Promise<CallToolResult> => {
    if (noDisplay) return result;
    const report = await pointerReport().catch(() => null);
    if (!report) return result;
    return { ...result, structuredContent: { ...(result.structuredContent ?? {}), ...report, ...(screenSize ? { screenSize } : {}) } };
  };

  register(
    'screenshot',
    LOOKS,
    async ({ window_id, display }) => {
      if (window_id !== undefined && display !== undefined) throw new Error('give window_id or display, not both');
      if (window_id !== undefined && protects && isProtected(await getWindow(window_id))) {
        throw new Error(`window ${window_id} is Deskhand's own: the agent does not look at it`);
      }
      // Native capture assumes the size the screen had when this process connected (see screenSize).
      const [seen, now] = await Promise.all([screenSize(), liveScreenSize()]);
      if (seen.width !== now.width || seen.height !== now.height) throw new ScreenResizedError({ seen, now });
      const source: ShotSource = window_id
        ? { kind: 'window', id: window_id }
        : display !== undefined
          ? { kind: 'display', index: display }
          : { kind: 'screen' };
      const shot = await captureScreenshot(await regionOf(source), config, pngEncoders, protects ? await protectedAreas() : []);
      const id = shotIds.next();
      const meta: ScreenshotMeta = { ...shot.meta, id, screenSize: now };
      geometry = { id, region: meta.region, imageWidth: meta.width, imageHeight: meta.height, source, screen: now };
      return {
        content: [
          { type: 'image', data: shot.data.toString('base64'), mimeType: meta.mimeType },
          { type: 'text', text: JSON.stringify(meta) },
        ],
        structuredContent: { ...meta },
      };
    },
    ScreenshotMeta,
  );

  register(
    'click',
    ACTS,
    async ({ x, y, button = 'left', double = false }, signal) => {
      const at = await toScreen(x, y);
      await click(at, button, double, signal);
      return text(`${double ? 'double-' : ''}clicked ${button} at (${x}, ${y})`, { screen: at });
    },
  );

  register(
    'move',
    NUDGES,
    async ({ x, y }) => {
      const at = await toScreen(x, y);
      await moveTo(at);
      return text(`moved the pointer to (${x}, ${y})`, { screen: at });
    },
  );

  register(
    'drag',
    ACTS,
    async ({ from_x, from_y, to_x, to_y }, signal) => {
      const from = await toScreen(from_x, from_y);
      const to = await toScreen(to_x, to_y);
      await drag(from, to, signal);
      return text(`dragged from (${from_x}, ${from_y}) to (${to_x}, ${to_y})`, { from, to });
    },
  );

  register(
    'scroll',
    NUDGES,
    async ({ x, y, direction, amount = 5 }, signal) => {
      const at = await toScreen(x, y);
      await scroll(at, direction, amount, signal);
      return text(`scrolled ${direction} by ${amount} at (${x}, ${y})`, { screen: at });
    },
  );

  register(
    'type_text',
    ACTS,
    async ({ text: t, x, y, method: mode }, signal, keyboard, progress) => {
      if ((x === undefined) !== (y === undefined)) throw new Error('give both x and y, or neither');
      if (x !== undefined && y !== undefined) {
        await click(await toScreen(x, y), 'left', false, signal);
        // The click is meant to give that window the keyboard; the keys go wherever it went.
        await keyboard?.settle(signal);
      }
      throwIfAborted(signal);
      // Counted as typed: a \r\n line break is one Enter.
      const total = [...normaliseNewlines(t)].length;
      const method = await typeText(t, mode, signal, async (sent) => {
        // The typing program is not killed mid-piece: the input this check lets through still arrives.
        progress.done = `${sent} of ${total} characters had gone out, and the input under way then may still arrive`;
        await keyboard?.ensure(null, sent);
      });
      const where = x !== undefined ? ` at (${x}, ${y})` : '';
      const how = method === 'paste' ? 'pasted' : 'typed';
      return text(`${how} ${[...t].length} characters${where}`, { method });
    },
  );

  register(
    'hotkey',
    ACTS,
    async ({ keys }, signal) => {
      await pressChord(parseKeys(keys), signal);
      return text(`pressed ${keys.join('+')}`);
    },
  );

  register(
    'wait',
    NUDGES,
    async ({ seconds }, signal) => {
      await abortableSleep(seconds * 1000, signal);
      return text(`waited ${seconds} s`);
    },
  );

  register(
    'list_windows',
    LOOKS,
    async () => {
      const windows = (await listWindows()).filter((window) => !isProtected(window));
      return text(JSON.stringify(windows), { windows });
    },
  );

  register(
    'list_displays',
    LOOKS,
    async () => {
      const displays = await listDisplays(liveScreenSize);
      return text(JSON.stringify(displays), { displays });
    },
  );

  register(
    'pointer',
    LOOKS,
    async () => {
      // The host checks the pointer before each step with this: the screen's size says whether a screen
      // that shrank put it where it is (see PointerReport).
      const [report, screenSize] = await Promise.all([pointerReport(), liveScreenSize().catch(() => null)]);
      return text(JSON.stringify(report.pointer), screenSize ? { screenSize } : undefined);
    },
  );

  register(
    'launch_app',
    ACTS,
    async ({ name, args }, signal) => {
      const list = typeof args === 'string' ? splitArgs(args) : (args ?? []);
      const launched = await launchApp(name, list, { signal });
      const what = launched.window
        ? `started ${name}; its window: ${JSON.stringify(launched.window)}${launched.note ? `; ${launched.note}` : ''}`
        : (launched.note ?? `started ${name} (pid ${launched.pid ?? 'unknown'}); no new window appeared yet`);
      return text(what, { ...launched });
    },
    LaunchResult,
  );

  register(
    'focus_window',
    NUDGES,
    async ({ id }, signal) => {
      const window = await focusWindow(
        id,
        (found) => {
          if (isProtected(found)) throw new Error(`window ${id} is Deskhand's own: the agent does not act on it`);
        },
        signal,
      );
      const { pid: _pid, active: _active, minimized: _minimized, ...info } = window;
      return text(`focused ${JSON.stringify(info)}`, { window: info });
    },
  );

  register(
    'execute_command',
    ACTS,
    async ({ command, cwd, timeout_s }, signal) => {
      const output = await runShellCommand({
        command,
        cwd,
        timeoutMs: (timeout_s ?? DEFAULT_COMMAND_TIMEOUT_S) * 1000,
        signal,
        ...(commandRecord ? { record: commandRecord } : {}),
      });
      const result = text(JSON.stringify(output), { ...output });
      // A command that did not finish is a failed call; one that finished with any exit code is not.
      return output.timed_out ? { ...result, isError: true } : result;
    },
    CommandOutput.extend({ signal: z.string().nullable(), duration_ms: z.number() }),
  );

  return server;
}

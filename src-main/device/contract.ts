import { z } from 'zod';

/**
 * The device tools' names and arguments (a contract: other MCP clients and checks rely on them). Pure zod: the host's command
 * layer validates model-chosen arguments with these before anything crosses to the device client, and
 * the device client validates again on arrival. Coordinates are pixels of the last screenshot sent to
 * the model; the device client maps them to the screen.
 */
const Coord = z.number().finite();
export const MouseButton = z.enum(['left', 'right', 'middle']);
export const ScrollDirection = z.enum(['up', 'down', 'left', 'right']);
export const TypingMode = z.enum(['auto', 'type', 'paste']);

export const ToolArgs = {
  /** window_id (from list_windows) or display (index from list_displays); neither: the whole desktop. */
  screenshot: z
    .object({ window_id: z.string().min(1).optional(), display: z.number().int().min(0).max(15).optional() })
    .strict(),
  click: z.object({ x: Coord, y: Coord, button: MouseButton.optional(), double: z.boolean().optional() }).strict(),
  move: z.object({ x: Coord, y: Coord }).strict(),
  drag: z.object({ from_x: Coord, from_y: Coord, to_x: Coord, to_y: Coord }).strict(),
  scroll: z
    .object({ x: Coord, y: Coord, direction: ScrollDirection, amount: z.number().int().min(1).max(50).optional() })
    .strict(),
  type_text: z
    .object({
      text: z.string().min(1).max(10_000),
      x: Coord.optional(),
      y: Coord.optional(),
      /** auto (default): key presses, or a clipboard paste for long text; paste: always paste; type: never paste. */
      method: TypingMode.optional(),
    })
    .strict(),
  hotkey: z.object({ keys: z.array(z.string().min(1).max(20)).min(1).max(6) }).strict(),
  wait: z.object({ seconds: z.number().min(0).max(60) }).strict(),
  list_windows: z.object({}).strict(),
  list_displays: z.object({}).strict(),
  pointer: z.object({}).strict(),
  launch_app: z
    .object({
      /** A program on PATH, an absolute path, or an application's name as its menu entry shows it. */
      name: z.string().min(1).max(200),
      /** Arguments as a list, or one string split like a shell would (quotes group, no expansion). */
      args: z.union([z.array(z.string().max(4_096)).max(50), z.string().max(20_000)]).optional(),
    })
    .strict(),
  focus_window: z.object({ id: z.string().min(1).max(40) }).strict(),
  execute_command: z
    .object({
      command: z.string().min(1).max(20_000),
      cwd: z.string().min(1).optional(),
      timeout_s: z.number().positive().max(3600).optional(),
    })
    .strict(),
} as const;
export type ToolName = keyof typeof ToolArgs;
export type ToolArgsOf<T extends ToolName> = z.infer<(typeof ToolArgs)[T]>;

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(ToolArgs, name);
}

/** The argument pairs that name a point on the last screenshot (click, drag's two ends, ...). */
export const POINT_ARGS: ReadonlyArray<readonly [string, string]> = [
  ['x', 'y'],
  ['from_x', 'from_y'],
  ['to_x', 'to_y'],
];

/** The points an action's arguments name, in screenshot pixels. */
export function pointsOf(args: Record<string, unknown>): Array<{ x: number; y: number }> {
  const points: Array<{ x: number; y: number }> = [];
  for (const [xKey, yKey] of POINT_ARGS) {
    const x = args[xKey];
    const y = args[yKey];
    if (typeof x === 'number' && typeof y === 'number') points.push({ x, y });
  }
  return points;
}

/**
 * Tools the host calls itself and the models never do: the host takes the screenshots, lists the
 * windows and focuses the agent's window. A model calling screenshot in an action sequence would also
 * change what later coordinates mean.
 */
export const HOST_ONLY_TOOLS: ReadonlySet<ToolName> = new Set(['screenshot', 'list_windows', 'list_displays', 'pointer', 'focus_window']);

/** Tools that change the desktop; everything else only looks. */
export const ACTION_TOOLS: ReadonlySet<ToolName> = new Set([
  'click',
  'move',
  'drag',
  'scroll',
  'type_text',
  'hotkey',
  'wait',
  'execute_command',
  'launch_app',
  'focus_window',
]);

/**
 * Whether an action leaves the pointer alone: if it moved while one ran, the user moved it. (The others
 * leave it where they put it, or where the window manager did on a focus.) type_text clicks first only
 * when given a point. launch_app can take seconds, the very time a user reaches for the mouse; a window
 * manager that warps the pointer onto new windows makes it pause the run once, which is the safe side.
 */
export function leavesPointerAlone(tool: string, args: Record<string, unknown>): boolean {
  return (
    tool === 'wait' ||
    tool === 'hotkey' ||
    tool === 'launch_app' ||
    (tool === 'type_text' && args.x === undefined && args.y === undefined)
  );
}

/**
 * Actions that do not use the mouse or keyboard at all: the pointer after one says nothing about who
 * drives the desktop, so it neither moves the agent's reference point nor counts as a takeover.
 */
export const DESKTOP_BLIND_TOOLS: ReadonlySet<ToolName> = new Set(['execute_command']);

/** The whole screen's logical size (the coordinate space of mouse input). */
export const ScreenSize = z.object({ width: z.number().int().positive(), height: z.number().int().positive() });
export type ScreenSize = z.infer<typeof ScreenSize>;

/** Names one screenshot among all a device client ever took, its restarts included (see EXPECT_SCREENSHOT_META). */
export const ScreenshotId = z.string().min(1).max(80);

/** Geometry that comes back with every screenshot (MCP structuredContent). */
export const ScreenshotMeta = z.object({
  /** Absent from a device that does not name its screenshots: actions cannot name one then. */
  id: ScreenshotId.optional(),
  /** Size of the encoded image the model sees. */
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  mimeType: z.enum(['image/jpeg', 'image/webp', 'image/png']),
  /** The captured region in logical screen coordinates. */
  region: z.object({ x: z.number(), y: z.number(), width: z.number().positive(), height: z.number().positive() }),
  /** The whole screen when it was taken (a window's screenshot does not show it); absent from a device that does not say it. */
  screenSize: ScreenSize.optional(),
  captureMs: z.number().nonnegative(),
  encodeMs: z.number().nonnegative(),
});
export type ScreenshotMeta = z.infer<typeof ScreenshotMeta>;

export const WindowInfo = z.object({
  id: z.string(),
  title: z.string(),
  app: z.string(),
  bounds: z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }),
});
export type WindowInfo = z.infer<typeof WindowInfo>;

export const CommandOutput = z.object({
  exit_code: z.number().int().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean(),
  timed_out: z.boolean(),
});
export type CommandOutput = z.infer<typeof CommandOutput>;

const XY = z.object({ x: z.number(), y: z.number() });

/**
 * Where the pointer is after a tool ran, in `structuredContent.pointer` of every tool result except
 * errors: logical screen coordinates, and pixels of the last screenshot (null when outside it). The
 * host compares it with where the agent left the pointer to notice the user taking the mouse.
 *
 * Beside it, `structuredContent.screenSize` (ScreenSize) when the device read the screen's size for the
 * result anyway: every screenshot and `pointer` result, and an action whose pointer check needed it. A
 * screen that shrank moved the pointer into it (see clampToScreen), which the host must not take for
 * the user's hand.
 */
export const PointerReport = z.object({ screen: XY, image: XY.nullable() });
export type PointerReport = z.infer<typeof PointerReport>;

/**
 * The takeover check, made on the device right before an action: the host puts
 * where the agent left the pointer in the call's MCP `_meta` under this key, and the device refuses to
 * act if the pointer is now farther from it than `tolerance` screen pixels. Checking and acting in the
 * same turn of the device's queue leaves the user no gap (moving the mouse while the model thinks,
 * say) between the check and the action.
 */
export const EXPECT_POINTER_META = 'deskhand/expectPointer';
export const ExpectPointer = z.object({ x: z.number(), y: z.number(), tolerance: z.number().nonnegative() });
export type ExpectPointer = z.infer<typeof ExpectPointer>;

/**
 * The screenshot an action's coordinates are pixels of: the host puts its id (ScreenshotMeta.id) in the
 * call's `_meta` under this key, and the device refuses an action at a point unless its last screenshot
 * is that one. A device client restarted since (a crash, a screen size change) has no screenshot or
 * another, and would map the pixels one-to-one or through another image. Without it the device maps
 * through its last screenshot, whichever that is (the CLI, other MCP clients).
 */
export const EXPECT_SCREENSHOT_META = 'deskhand/screenshot';
export const ExpectScreenshot = z.object({ id: ScreenshotId }).strict();
export type ExpectScreenshot = z.infer<typeof ExpectScreenshot>;

/**
 * An action the device refused because the pointer had moved says where it is now in the result's
 * `_meta` under this key (not in structuredContent, which a tool's output schema governs).
 */
export const POINTER_MOVED_META = 'deskhand/pointerMoved';
export const PointerMovedRefusal = z.object({ pointer: PointerReport });

/** The value under `key` in a call's or result's `_meta` (undefined when there is none). */
function metaEntry(meta: unknown, key: string): unknown {
  return meta && typeof meta === 'object' ? (meta as Record<string, unknown>)[key] : undefined;
}

/** A check the host asks for in a call's `_meta`: null when there is none; throws on anything malformed. */
function expectationOf<T>(meta: unknown, key: string, schema: z.ZodType<T>): T | null {
  const raw = metaEntry(meta, key);
  if (raw === undefined) return null;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new Error(`bad ${key} metadata: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

/** A device's refusal in a result's `_meta`, or null when the result is not one. */
function refusalOf<T>(resultMeta: unknown, key: string, schema: z.ZodType<T>): T | null {
  const parsed = schema.safeParse(metaEntry(resultMeta, key));
  return parsed.success ? parsed.data : null;
}

/** The refusal in a tool result's `_meta`, or null when the result is not one. */
export function pointerMovedRefusalOf(resultMeta: unknown): PointerMovedRefusal | null {
  return refusalOf(resultMeta, POINTER_MOVED_META, PointerMovedRefusal);
}
export type PointerMovedRefusal = z.infer<typeof PointerMovedRefusal>;

/** The expected pointer in a call's `_meta`, or null when there is none; throws on anything malformed. */
export function expectedPointerOf(meta: unknown): ExpectPointer | null {
  return expectationOf(meta, EXPECT_POINTER_META, ExpectPointer);
}

/** The screenshot named in a call's `_meta`, or null when there is none; throws on anything malformed. */
export function expectedScreenshotOf(meta: unknown): ExpectScreenshot | null {
  return expectationOf(meta, EXPECT_SCREENSHOT_META, ExpectScreenshot);
}

interface Point {
  x: number;
  y: number;
}

/**
 * Where a point of the screen is once the screen is `size`: the X server keeps the pointer on a screen
 * that shrinks under it by moving it to the nearest point inside, so nobody moved a pointer found there.
 */
export function clampToScreen(point: Point, size: ScreenSize): Point {
  return { x: Math.min(point.x, size.width - 1), y: Math.min(point.y, size.height - 1) };
}

/**
 * Whether the pointer is farther from where the agent left it than the tolerance; given the screen's
 * size now, from where that point is on the screen (clampToScreen).
 */
export function pointerMoved(expected: ExpectPointer, pointer: Point, screenSize?: ScreenSize): boolean {
  const left = screenSize ? clampToScreen(expected, screenSize) : expected;
  return Math.hypot(pointer.x - left.x, pointer.y - left.y) > expected.tolerance;
}

/** The result of an action refused by that check: an error, with where the pointer is now. */
export function pointerMovedResult(tool: string, expected: ExpectPointer, pointer: PointerReport) {
  const { x, y } = pointer.screen;
  return {
    content: [{ type: 'text' as const, text: `${tool} not run: the pointer is at (${x}, ${y}), not at (${expected.x}, ${expected.y}) where the agent left it` }],
    isError: true,
    _meta: { [POINTER_MOVED_META]: { pointer } },
  };
}

/**
 * The keyboard check, made on the device right before input whose safety depends on where it goes (a
 * line typed or Enter pressed runs in a terminal): the host puts the window the safety policy judged
 * the input for (its id, and its application) in the call's `_meta` under this key, and the device
 * refuses if the input would reach another program's window. Typed text and keys go to the active
 * window; a type_text with a point, and a middle click (a paste), go to the topmost window at the point
 * (and, after that click, to the active window). Typing is checked again before every piece, so a
 * window that takes the focus part-way stops it. A click in an earlier step can raise another window
 * over the agent's, so the window the agent was given is no proof of where the keys land.
 *
 * The same program is recognised by its process (_NET_WM_PID: its dialogs, its other windows), by a
 * dialog another process opened for its window (WM_TRANSIENT_FOR: the desktop portal's file chooser),
 * or by the application name when a window does not say its process; not by the name alone, which any
 * program can choose (xterm -name) and some share (every Java window is "sun-awt-X11-XFramePeer").
 */
export const EXPECT_KEYBOARD_META = 'deskhand/expectKeyboard';
export const ExpectKeyboard = z
  .object({ app: z.string().trim().min(1).max(200), window: z.string().trim().min(1).max(40).optional() })
  .strict();
export type ExpectKeyboard = z.infer<typeof ExpectKeyboard>;

/** Whether an action sends input whose target the keyboard check is about. */
export function sendsInput(tool: string, args: Record<string, unknown>): boolean {
  return tool === 'type_text' || tool === 'hotkey' || (tool === 'click' && args.button === 'middle');
}

/** The expected application in a call's `_meta`, or null when there is none; throws on anything malformed. */
export function expectedKeyboardOf(meta: unknown): ExpectKeyboard | null {
  return expectationOf(meta, EXPECT_KEYBOARD_META, ExpectKeyboard);
}

/** Whether a window's application is the expected one (names compare without case). */
export function sameApp(expected: string, app: string): boolean {
  return app.trim() !== '' && app.trim().toLowerCase() === expected.trim().toLowerCase();
}

/**
 * An action refused by the keyboard check says where the input would have gone in the result's `_meta`
 * under this key: the window (null when no window has the keyboard, or it is Deskhand's own).
 */
export const KEYBOARD_ELSEWHERE_META = 'deskhand/keyboardElsewhere';
export const KeyboardElsewhereRefusal = z.object({
  expected: z.string(),
  window: z.object({ title: z.string(), app: z.string() }).nullable(),
  /** Characters already typed when the focus moved part-way (0: none). */
  typed: z.number().int().nonnegative().default(0),
});
export type KeyboardElsewhereRefusal = z.infer<typeof KeyboardElsewhereRefusal>;

/** The refusal in a tool result's `_meta`, or null when the result is not one. */
export function keyboardElsewhereRefusalOf(resultMeta: unknown): KeyboardElsewhereRefusal | null {
  return refusalOf(resultMeta, KEYBOARD_ELSEWHERE_META, KeyboardElsewhereRefusal);
}

/** The result of an action refused by the keyboard check: an error that says where the input would have gone. */
export function keyboardElsewhereResult(tool: string, refusal: KeyboardElsewhereRefusal) {
  const where = refusal.window
    ? `"${refusal.window.title}" (${refusal.window.app || 'an unknown application'})`
    : "no window the agent may use (none has the keyboard, or it is Deskhand's own)";
  const text =
    refusal.typed > 0
      ? `${tool} stopped after ${refusal.typed} characters: the rest would have gone to ${where}, not to ${refusal.expected}`
      : `${tool} not run: the input would go to ${where}, not to ${refusal.expected}`;
  return {
    content: [{ type: 'text' as const, text }],
    isError: true,
    _meta: { [KEYBOARD_ELSEWHERE_META]: refusal },
  };
}

/**
 * A screenshot refused because the screen changed size after the device client connected to it: its
 * native screen code keeps the size it saw then, so it would capture the wrong area (or abort on a
 * smaller screen). The result's `_meta` says the sizes under this key; the host restarts the device
 * client, whose new connection sees the screen as it is, and asks again.
 */
export const SCREEN_RESIZED_META = 'deskhand/screenResized';
const Size = z.object({ width: z.number().int().nonnegative(), height: z.number().int().nonnegative() });
export const ScreenResizedRefusal = z.object({ seen: Size, now: Size });
export type ScreenResizedRefusal = z.infer<typeof ScreenResizedRefusal>;

/** The refusal in a tool result's `_meta`, or null when the result is not one. */
export function screenResizedRefusalOf(resultMeta: unknown): ScreenResizedRefusal | null {
  return refusalOf(resultMeta, SCREEN_RESIZED_META, ScreenResizedRefusal);
}

export function screenResizedResult(tool: string, refusal: ScreenResizedRefusal) {
  const { seen, now } = refusal;
  return {
    content: [
      {
        type: 'text' as const,
        text:
          `${tool} not taken: the screen changed size (${seen.width}x${seen.height} when the device client started, ` +
          `${now.width}x${now.height} now); the device client must be restarted to capture it`,
      },
    ],
    isError: true,
    _meta: { [SCREEN_RESIZED_META]: refusal },
  };
}

/** One monitor (list_displays); bounds in logical screen coordinates. */
export const DisplayInfo = z.object({
  index: z.number().int().nonnegative(),
  name: z.string(),
  primary: z.boolean(),
  bounds: z.object({ x: z.number(), y: z.number(), width: z.number().positive(), height: z.number().positive() }),
});
export type DisplayInfo = z.infer<typeof DisplayInfo>;

/**
 * How launch_app told its window to be the launched program's (see launch-window.ts): its owner is the
 * started process or one it started; an already running process of the same program; what a launcher
 * such as xdg-open handed over to; no owner known but its class names the program; or none of these
 * (the only new window, taken at the end of the wait).
 */
export const LaunchMatch = z.enum(['launched_process', 'same_program', 'handed_over', 'window_class', 'unverified']);
export type LaunchMatch = z.infer<typeof LaunchMatch>;

/**
 * What launch_app reports: the process it started and its new top-level window, if one appeared. The
 * optional fields come from X11: how the window was matched, the new windows of other programs that
 * appeared meanwhile (never reported as the program's), and a sentence on anything doubtful.
 */
export const LaunchResult = z.object({
  pid: z.number().int().nullable(),
  command: z.array(z.string()),
  window: WindowInfo.nullable(),
  window_match: LaunchMatch.nullable().optional(),
  other_windows: z.array(WindowInfo).optional(),
  note: z.string().optional(),
});
export type LaunchResult = z.infer<typeof LaunchResult>;

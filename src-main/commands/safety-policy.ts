import { isToolName } from '../device/contract';
import type { SafetyConfig } from '../host/config';

/**
 * The confirmation policy (DESIGN.md section 7), applied in the trusted command layer to every command
 * whatever status the model gave. Pure: settings in, a decision with reasons in words out.
 *
 * Modes (settings `safety.confirmation`):
 * - `always`: every action waits for approval (tools that only look, such as screenshot, do not).
 * - `sensitive` (default): an action waits when the model said CONFIRM or a local rule matches:
 *   - any shell command (`execute_command`) while `confirmAllShellCommands` is on (the default);
 *   - text that would run as a command and matches `sensitiveCommandPatterns`: the command of
 *     execute_command, the command line of launch_app, and text typed with type_text (typed into a
 *     terminal, it runs);
 *   - launch_app of a shell or interpreter (bash, python, ...), which is a shell command by another name;
 *   - click, type_text or hotkey on a control whose ControlText contains one of
 *     `sensitiveControlWords` (whole words, any case: "Delete" matches "delete all" but not "Undeleted");
 *   - hotkeys that close an application or window (alt+f4, ctrl+w, ctrl+q, cmd+q, ...) or delete
 *     without the bin (shift+delete);
 *   - a tool of an external MCP server the user has not marked trusted.
 * - `never`: nothing waits.
 * In every mode, text that would run and matches `denyCommandPatterns` is denied: it never runs, and no
 * approval can change that. The patterns are a guard against accidents, not a sandbox: a determined
 * caller can spell a command so no pattern sees it, which is why shell commands need approval by default.
 *
 * Patterns are compiled once, when the policy is built; an invalid one is a SafetyConfigError naming the
 * setting, its index and the pattern.
 */

export type SafetyDecision = 'allow' | 'confirm' | 'deny';

export interface SafetyInput {
  /** Device tool ("click") or external tool ("<server>.<tool>"). */
  toolName: string;
  args: Record<string, unknown>;
  /** The model's ControlText for this action ('' or undefined when none). */
  controlText?: string | null;
  /** The model's Status for this step or action, e.g. "CONTINUE" or "CONFIRM". */
  modelStatus?: string | null;
  /** Device tools and tools of external servers marked trusted: true. */
  trustedTool: boolean;
}

export interface SafetyVerdict {
  decision: SafetyDecision;
  /** Why, in words, for the confirmation prompt and the audit table; empty when nothing matched. */
  reasons: string[];
}

export class SafetyConfigError extends Error {
  override name = 'SafetyConfigError';
}

/** Device tools that only look: never held, even in `always` mode (unless the model asks). */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(['screenshot', 'list_windows', 'list_displays', 'pointer']);

/** Programs that run whatever they are given: launching one is a shell command. */
const SHELLS = new Set([
  'sh', 'bash', 'dash', 'zsh', 'ksh', 'fish', 'csh', 'tcsh', 'busybox', 'env', 'sudo', 'doas', 'su', 'pkexec', 'xargs',
  'python', 'perl', 'ruby', 'node', 'nodejs', 'deno', 'bun', 'php', 'lua', 'tclsh', 'osascript',
  'powershell', 'pwsh', 'cmd', 'wscript', 'cscript', 'mshta', 'rundll32',
]);
/** Programs that run a command given in their arguments (`xterm -e ...`); opening one bare is harmless. */
const COMMAND_RUNNERS = new Set(['x-terminal-emulator', 'xterm', 'uxterm', 'gnome-terminal', 'konsole', 'xfce4-terminal', 'terminal', 'open', 'start']);

const MODIFIER_ALIASES: Record<string, string> = {
  control: 'ctrl',
  ctl: 'ctrl',
  lctrl: 'ctrl',
  rctrl: 'ctrl',
  option: 'alt',
  altgr: 'alt',
  cmd: 'meta',
  command: 'meta',
  win: 'meta',
  windows: 'meta',
  super: 'meta',
  del: 'delete',
};

/** Key chords that close an application or window, or delete for good: [key, modifiers it needs]. */
const CHORD_RULES: { key: string; mods: string[]; reason: string }[] = [
  { key: 'f4', mods: ['alt'], reason: 'closes an application' },
  { key: 'f4', mods: ['ctrl'], reason: 'closes an application' },
  { key: 'q', mods: ['ctrl'], reason: 'closes an application' },
  { key: 'q', mods: ['meta'], reason: 'closes an application' },
  { key: 'w', mods: ['ctrl'], reason: 'closes an application' },
  { key: 'w', mods: ['meta'], reason: 'closes an application' },
  { key: 'x', mods: ['ctrl', 'alt'], reason: 'closes an application' },
  { key: 'delete', mods: ['shift'], reason: 'deletes permanently' },
  { key: 'backspace', mods: ['meta'], reason: 'deletes permanently' },
];
const MODIFIERS = new Set(['ctrl', 'alt', 'shift', 'meta']);

const INPUT_ON_CONTROL = new Set(['click', 'type_text', 'hotkey']);

interface CompiledPattern {
  source: string;
  regex: RegExp;
}

function compile(patterns: readonly string[], setting: string): CompiledPattern[] {
  return patterns.map((source, index) => {
    try {
      return { source, regex: new RegExp(source, 'iu') };
    } catch (unicodeError) {
      // Patterns written for the non-Unicode dialect (e.g. "\-" or "\ ") are still fine there.
      try {
        return { source, regex: new RegExp(source, 'i') };
      } catch {
        const why = unicodeError instanceof Error ? unicodeError.message : String(unicodeError);
        throw new SafetyConfigError(`safety.${setting}[${index}] is not a valid regular expression: ${JSON.stringify(source)} (${why})`);
      }
    }
  });
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Quoted for a reason line: single quotes, at most 60 characters, one line. */
function quote(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return `'${line.length > 60 ? `${line.slice(0, 59)}…` : line}'`;
}

export function normaliseKey(name: string): string {
  const lower = name.trim().toLowerCase();
  return MODIFIER_ALIASES[lower] ?? lower;
}

/** Shell-ish text the action would run, if any: what the command patterns are checked against. */
function runnableTexts(toolName: string, args: Record<string, unknown>, trustedDeviceTool: boolean): string[] {
  const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  switch (toolName) {
    case 'execute_command':
      return [str(args.command) ?? ''];
    case 'type_text':
      return [str(args.text) ?? ''];
    case 'launch_app': {
      const rest = Array.isArray(args.args) ? args.args.map(String).join(' ') : (str(args.args) ?? '');
      return [`${str(args.name) ?? ''} ${rest}`.trim()];
    }
    default:
      if (trustedDeviceTool) return [];
      // External tools: any string argument might be a command for all we know.
      return Object.values(args).flatMap((value) =>
        typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [],
      );
  }
}

/** "/usr/bin/python3.11" -> "python", "PowerShell.exe" -> "powershell". */
export function programName(path: string): string {
  const base = (path.trim().split(/[\\/]/).pop() ?? '').toLowerCase();
  const bare = base.replace(/\.(exe|cmd|bat|com)$/, '');
  return bare.replace(/[\d.]+$/, '') || bare;
}

export class SafetyPolicy {
  private readonly sensitive: CompiledPattern[];
  private readonly deny: CompiledPattern[];
  private readonly controlWords: { word: string; regex: RegExp }[];

  constructor(private readonly config: SafetyConfig) {
    this.sensitive = compile(config.sensitiveCommandPatterns, 'sensitiveCommandPatterns');
    this.deny = compile(config.denyCommandPatterns, 'denyCommandPatterns');
    this.controlWords = config.sensitiveControlWords
      .map((word) => word.trim())
      .filter((word) => word.length > 0)
      .map((word) => ({
        word,
        // \b is ASCII-only; these lookarounds give whole words in any script ("Löschen", "送信").
        regex: new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegex(word)}(?![\\p{L}\\p{N}_])`, 'iu'),
      }));
  }

  get mode(): SafetyConfig['confirmation'] {
    return this.config.confirmation;
  }

  evaluate(input: SafetyInput): SafetyVerdict {
    const args = input.args ?? {};
    const isDevice = isToolName(input.toolName);
    const texts = runnableTexts(input.toolName, args, isDevice);

    const denied: string[] = [];
    for (const text of texts) {
      for (const pattern of this.deny) {
        const match = pattern.regex.exec(text);
        if (match) denied.push(`denied: matches ${quote(match[0] || pattern.source)}`);
      }
    }
    if (denied.length > 0) return { decision: 'deny', reasons: unique(denied) };

    const mode = this.config.confirmation;
    if (mode === 'never') return { decision: 'allow', reasons: [] };

    const reasons = this.ruleReasons(input, texts, isDevice);
    if (mode === 'always') {
      const looksOnly = isDevice && READ_ONLY_TOOLS.has(input.toolName);
      if (!looksOnly) return { decision: 'confirm', reasons: unique(['mode: every action needs approval', ...reasons]) };
    }
    return reasons.length > 0 ? { decision: 'confirm', reasons: unique(reasons) } : { decision: 'allow', reasons: [] };
  }

  private ruleReasons(input: SafetyInput, texts: readonly string[], isDevice: boolean): string[] {
    const reasons: string[] = [];
    const { toolName } = input;
    const args = input.args ?? {};
    if ((input.modelStatus ?? '').trim().toUpperCase() === 'CONFIRM') reasons.push('the model asked for confirmation');

    if (!isDevice && !input.trustedTool) reasons.push(`rule: external tool ${quote(toolName)} from a server not marked trusted`);

    if (toolName === 'execute_command' && this.config.confirmAllShellCommands) reasons.push('rule: shell command');
    if (toolName === 'launch_app' && typeof args.name === 'string') {
      const program = programName(args.name);
      const hasArgs = Array.isArray(args.args) ? args.args.length > 0 : typeof args.args === 'string' && args.args.trim() !== '';
      if (SHELLS.has(program) || (hasArgs && COMMAND_RUNNERS.has(program))) {
        reasons.push(`rule: launches a shell or interpreter (${program})`);
      }
    }
    const what = toolName === 'type_text' ? 'typed text' : toolName === 'launch_app' ? 'command line' : 'command';
    for (const text of texts) {
      for (const pattern of this.sensitive) {
        const match = pattern.regex.exec(text);
        if (match) reasons.push(`rule: ${what} matches ${quote(match[0] || pattern.source)}`);
      }
    }

    const controlText = (input.controlText ?? '').trim();
    if (controlText && INPUT_ON_CONTROL.has(toolName)) {
      for (const { word, regex } of this.controlWords) {
        if (regex.test(controlText)) reasons.push(`rule: control text ${quote(word)}`);
      }
    }

    if (toolName === 'hotkey' && Array.isArray(args.keys)) {
      const keys = args.keys.filter((k): k is string => typeof k === 'string').map(normaliseKey);
      const mods = new Set(keys.filter((k) => MODIFIERS.has(k)));
      const main = keys.filter((k) => !MODIFIERS.has(k));
      for (const rule of CHORD_RULES) {
        if (main.includes(rule.key) && rule.mods.every((m) => mods.has(m))) {
          reasons.push(`rule: ${rule.reason} (${keys.join('+')})`);
          break;
        }
      }
    }
    return reasons;
  }
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** One-off evaluation; build a SafetyPolicy once instead where settings do not change per call. */
export function evaluateSafety(input: SafetyInput, config: SafetyConfig): SafetyVerdict {
  return new SafetyPolicy(config).evaluate(input);
}

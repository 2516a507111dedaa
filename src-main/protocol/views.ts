import { z } from 'zod';
import { AgentStatus, NotRun, PauseCause, SessionMode, SessionStatus } from './status';

/** A file name inside one session's screenshot folder: no separators, no parent references. */
export const ScreenshotFileName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'screenshot file names are plain names')
  .refine((name) => !name.includes('..'), 'screenshot file names are plain names');

/** Points at a stored screenshot; the bridge turns it into a URL (never base64 over the bridge). */
export const ScreenshotRef = z.object({
  sessionId: z.string().min(1),
  file: ScreenshotFileName,
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});
export type ScreenshotRef = z.infer<typeof ScreenshotRef>;

export const ActionView = z.object({
  function: z.string(),
  args: z.record(z.string(), z.unknown()),
});
export type ActionView = z.infer<typeof ActionView>;

export const TokenUsage = z.object({
  prompt: z.number().int().nonnegative(),
  completion: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

export const StepView = z.object({
  id: z.string(),
  sessionId: z.string(),
  /** 0-based position in the session; shown to people as index + 1. */
  index: z.number().int().nonnegative(),
  /** 0-based round: each follow-up request starts a new one. */
  round: z.number().int().nonnegative().default(0),
  /** "HostAgent", "AppAgent", "ShellAgent". */
  agent: z.string(),
  /** The application window an AppAgent works in, e.g. "xterm", or null. */
  target: z.string().nullable().default(null),
  /** The sub-task the HostAgent handed over, or null for the host's own steps. */
  subtask: z.string().nullable().default(null),
  status: AgentStatus,
  observation: z.string(),
  thought: z.string(),
  plan: z.array(z.string()).default([]),
  comment: z.string().default(''),
  action: ActionView.nullable(),
  /** The action in words, e.g. "Type 'echo hi' at (10, 20)". Several lines for an action sequence. */
  actionText: z.string(),
  result: z.string().nullable(),
  error: z.string().nullable(),
  screenshot: ScreenshotRef.nullable(),
  /** The same screenshot with the action drawn on it, when there was an action. */
  annotated: ScreenshotRef.nullable().default(null),
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
  /** Milliseconds per processor phase, e.g. { DATA_COLLECTION: 40, LLM_INTERACTION: 900 }. */
  phaseMs: z.record(z.string(), z.number().nonnegative()).default({}),
  tokens: TokenUsage,
  /** Estimated cost in US dollars, when the model's prices are known. */
  costUsd: z.number().nonnegative().nullable().default(null),
  /** Who approved the action: 'user', 'policy' (no confirmation needed), or null when nothing ran. */
  approvedBy: z.enum(['user', 'policy']).nullable().default(null),
  /** Why its action did not run (rejected by the user, paused, refused by the safety rule), or null. */
  notRun: NotRun.nullable().default(null),
});
export type StepView = z.infer<typeof StepView>;
export type StepViewInput = z.input<typeof StepView>;

/** What only the step detail view needs; fetched on demand, not pushed with every step. */
export const StepDetail = z.object({
  step: StepView,
  modelReply: z.string().nullable(),
  /** The prompt's text parts as sent (images left out), for debugging prompts. */
  promptText: z.string().nullable(),
});
export type StepDetail = z.infer<typeof StepDetail>;

export const SessionView = z.object({
  id: z.string(),
  title: z.string(),
  request: z.string(),
  mode: SessionMode,
  status: SessionStatus,
  createdAt: z.number(),
  updatedAt: z.number(),
  stepCount: z.number().int().nonnegative(),
  roundCount: z.number().int().nonnegative().default(1),
  result: z.string().nullable(),
  tokens: TokenUsage.default({ prompt: 0, completion: 0 }),
  costUsd: z.number().nonnegative().nullable().default(null),
  /** The round's step limit, for "step n of max". */
  maxSteps: z.number().int().positive().nullable().default(null),
});
export type SessionView = z.infer<typeof SessionView>;
export type SessionViewInput = z.input<typeof SessionView>;

/** The most of a damaged session's request and problem the list carries (one line in the sidebar). */
export const DAMAGED_TEXT_CHARS = 300;

/**
 * A session whose stored row no longer reads as a session (written by a faulty older Deskhand, or a
 * damaged disk page): listed so that it can be seen and deleted, never opened. It carries what could be
 * read of it (null where that column could not) and why it is damaged, in short.
 */
export const DamagedSessionView = z.object({
  id: z.string().min(1).max(64),
  createdAt: z.number().nullable(),
  request: z.string().max(DAMAGED_TEXT_CHARS).nullable(),
  problem: z.string().min(1).max(DAMAGED_TEXT_CHARS),
});
export type DamagedSessionView = z.infer<typeof DamagedSessionView>;

/**
 * Deskhand found its database damaged at start-up: it set the file aside (kept as it was) and carried
 * what could be read into a new one. Shown above the sessions list until dismissed.
 */
export const DatabaseRepairView = z.object({
  /** Where the damaged file now is. */
  damagedFile: z.string().min(1).max(4_096),
  /** What SQLite said of it. */
  reason: z.string().max(DAMAGED_TEXT_CHARS),
  /** What the new database holds of it. */
  sessions: z.number().int().nonnegative(),
  steps: z.number().int().nonnegative(),
  /** Sessions whose own record was lost, made again from their requests and steps. */
  rebuiltSessions: z.number().int().nonnegative(),
  /** Whether parts of the file could not be read (what was on them is not in the new database). */
  partsLost: z.boolean(),
});
export type DatabaseRepairView = z.infer<typeof DatabaseRepairView>;

export const RoundView = z.object({
  index: z.number().int().nonnegative(),
  request: z.string(),
  status: SessionStatus,
  result: z.string().nullable(),
});
export type RoundView = z.infer<typeof RoundView>;

export const SessionDetail = z.object({
  session: SessionView,
  /** Each request of the session (the first, then each follow-up), oldest first. */
  rounds: z.array(RoundView).default([]),
  steps: z.array(StepView),
  /** Questions or approvals still waiting for the user. */
  interactions: z.array(z.lazy(() => Interaction)).default([]),
  forms: z.array(z.lazy(() => FormView)).default([]),
  /** Why its run is paused, while it is: what the last `status.changed` said (the store keeps no reason). */
  pause: z.object({ detail: z.string(), cause: PauseCause }).nullable().default(null),
});
export type SessionDetail = z.infer<typeof SessionDetail>;

/** Something the agent waits for the user to do. */
export const Interaction = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('questions'),
    id: z.string(),
    sessionId: z.string(),
    agent: z.string(),
    questions: z.array(z.string().min(1)).min(1),
  }),
  z.object({
    kind: z.literal('confirm'),
    id: z.string(),
    sessionId: z.string(),
    agent: z.string(),
    /** What will happen, in words (one line per action of a sequence). */
    actionText: z.string(),
    actions: z.array(ActionView),
    /** The window or control acted on, when known. */
    target: z.string().nullable(),
    /** Why it was held: "the model asked for confirmation", "rule: shell command", ... */
    reasons: z.array(z.string()).min(1),
    /** The screenshot with the action drawn on it (or the plain one). */
    screenshot: ScreenshotRef.nullable(),
  }),
]);
export type Interaction = z.infer<typeof Interaction>;

/** The most a model-written form spec may weigh, serialised; bigger specs are refused. */
export const MAX_FORM_SPEC_BYTES = 64 * 1024;

/** An interactive form an agent shows (blue-style CREATE_FORM / UPDATE_FORM / CLOSE_FORM). */
export const FormView = z.object({
  formId: z.string(),
  sessionId: z.string(),
  agent: z.string(),
  schema: z.record(z.string(), z.unknown()),
  uischema: z.record(z.string(), z.unknown()).nullable(),
  data: z.record(z.string(), z.unknown()),
  state: z.enum(['open', 'closed']),
});
export type FormView = z.infer<typeof FormView>;

export const BlackboardView = z.object({
  questions: z.array(z.object({ question: z.string(), answer: z.string() })),
  requests: z.array(z.string()),
  trajectories: z.array(z.record(z.string(), z.unknown())),
  screenshots: z.array(z.object({ screenshot: ScreenshotRef, reason: z.string() })),
});
export type BlackboardView = z.infer<typeof BlackboardView>;

/** Settings as the UI sees them: JSON Schema for the form, values without secrets. */
export const SettingsView = z.object({
  schema: z.record(z.string(), z.unknown()),
  uischema: z.record(z.string(), z.unknown()).nullable(),
  values: z.record(z.string(), z.unknown()),
  /** Which API keys are set (never the keys themselves), by model profile name. */
  secrets: z.record(z.string(), z.object({ set: z.boolean(), protected: z.boolean() })),
});
export type SettingsView = z.infer<typeof SettingsView>;

/** The most of a server's error a status carries: it comes from the server or its HTTP library, in any length. */
export const MAX_SERVER_ERROR_CHARS = 1_000;
/** The most lines saying what was left out of a server's tool list, and the most of each. */
export const MAX_LEFT_OUT_LINES = 10;
export const MAX_LEFT_OUT_CHARS = 500;

/**
 * One of the user's own MCP servers (settings `mcpServers`) as the host sees it now. Not connected
 * with no error: not tried yet (servers connect at the first request, or when checked).
 */
export const ServerStatusView = z.object({
  name: z.string().min(1).max(64),
  transport: z.enum(['stdio', 'http']),
  trusted: z.boolean(),
  connected: z.boolean(),
  toolCount: z.number().int().nonnegative(),
  /** What of its tool list was left out and why, one line per reason. */
  leftOut: z.array(z.string().max(MAX_LEFT_OUT_CHARS)).max(MAX_LEFT_OUT_LINES),
  /** Why its last connection, call or tool-list read failed (secrets removed); null when none did. */
  error: z.string().max(MAX_SERVER_ERROR_CHARS).nullable(),
});
export type ServerStatusView = z.infer<typeof ServerStatusView>;

/** The servers the saved settings name, in their order. */
export const ServersStatusView = z.object({ servers: z.array(ServerStatusView) });
export type ServersStatusView = z.infer<typeof ServersStatusView>;

import { z } from 'zod';
import { SessionMode } from './status';
import { BlackboardView, DamagedSessionView, DatabaseRepairView, ServersStatusView, SessionDetail, SessionView, SettingsView, StepDetail } from './views';

/** The longest request a user may type; longer text is refused, not cut. */
export const MAX_REQUEST_CHARS = 20_000;
const REQUEST_TOO_LONG = `the request is too long: at most ${MAX_REQUEST_CHARS.toLocaleString('en')} characters`;

/** The most questions one interaction may ask: one `interaction.answer` carries an answer to each. */
export const MAX_QUESTIONS = 50;

/** The longest title a user may give a session (a title made from the request is shorter: 80). */
export const MAX_SESSION_TITLE_CHARS = 120;

/**
 * Characters a title may not hold: control characters (tabs, line breaks, escapes), line and paragraph
 * separators, and the bidirectional overrides and isolates, which can make a title read as another.
 */
const TITLE_CONTROL = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/** A character that shows: neither white space nor one of the invisible format characters. */
const TITLE_VISIBLE = /[^\s\u00ad\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/u;

/** A session's title as the user gives it: one line, trimmed, not empty, refused (not cut) when too long. */
export const SessionTitle = z
  .string()
  .trim()
  .min(1, 'the title is empty')
  .max(MAX_SESSION_TITLE_CHARS, `the title is too long: at most ${MAX_SESSION_TITLE_CHARS} characters`)
  // Zero-width spaces, joiners and soft hyphens alone show nothing: the list would show a blank title.
  .refine((title) => title === '' || TITLE_VISIBLE.test(title), 'the title is empty')
  .refine((title) => !TITLE_CONTROL.test(title), 'the title may not hold control characters such as tabs or line breaks');

const RequestId = z.string().min(1).max(64);
const Id = z.string().min(1).max(64);
const UserText = z.string().max(MAX_REQUEST_CHARS);

function command<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.object({ type: z.literal(type), id: RequestId, ...shape }).strict();
}

/**
 * Commands from a UI (renderer, CLI, test) to the host. Each carries an id that its reply repeats.
 * `strict()` refuses unknown fields so a typo is an error, not a silently ignored option.
 */
export const HostCommand = z.discriminatedUnion('type', [
  command('session.start', {
    request: z.string().trim().min(1, 'the request is empty').max(MAX_REQUEST_CHARS, REQUEST_TOO_LONG),
    mode: SessionMode.default('desktop'),
  }),
  /** A follow-up request: a new round in the same session, over the same blackboard. */
  command('session.continue', {
    sessionId: Id,
    request: z.string().trim().min(1, 'the request is empty').max(MAX_REQUEST_CHARS, REQUEST_TOO_LONG),
  }),
  command('session.stop', { sessionId: Id }),
  command('session.pause', { sessionId: Id }),
  /** Resumes a paused run, or an interrupted session from its last committed step. */
  command('session.resume', { sessionId: Id }),
  command('session.list', { query: z.string().max(200).optional() }),
  command('session.open', { sessionId: Id }),
  command('session.delete', { sessionId: Id }),
  /** Gives a session a title of the user's own; its request (and rounds) stay as they were. */
  command('session.rename', { sessionId: Id, title: SessionTitle }),
  command('session.export', { sessionId: Id }),
  command('step.detail', { sessionId: Id, stepId: Id }),
  command('blackboard.get', { sessionId: Id }),
  command('interaction.answer', {
    sessionId: Id,
    interactionId: Id,
    answers: z.array(UserText).min(1).max(MAX_QUESTIONS),
  }),
  command('interaction.decide', {
    sessionId: Id,
    interactionId: Id,
    approved: z.boolean(),
    note: z.string().max(2_000).optional(),
  }),
  /** A user's change or button press in an agent form: values are debounced by the UI, actions sent at once. */
  command('form.event', {
    sessionId: Id,
    formId: Id,
    path: z.string().max(500),
    value: z.unknown(),
    action: z.string().max(200).nullable(),
  }),
  command('settings.get', {}),
  command('settings.set', {
    values: z.record(z.string(), z.unknown()),
    /** New API keys by model profile; an empty string removes the key. Write-only: never read back. */
    secrets: z.record(z.string(), z.string().max(500)).optional(),
  }),
  /** How each of the user's own MCP servers stands now; connects nothing. */
  command('servers.status', {}),
  /**
   * Connects every server not connected (and pings those that are) now, then answers their status:
   * within the connect timeout, and a ping's, at most.
   */
  command('servers.check', {}),
]);
export type HostCommand = z.infer<typeof HostCommand>;
export type HostCommandInput = z.input<typeof HostCommand>;
export type HostCommandType = HostCommand['type'];

const Empty = z.object({});

/** What a successful reply carries, per command type. */
export const CommandResults = {
  'session.start': z.object({ session: SessionView }),
  'session.continue': z.object({ session: SessionView }),
  'session.stop': z.object({ sessionId: Id, stopped: z.boolean() }),
  'session.pause': z.object({ sessionId: Id, paused: z.boolean() }),
  'session.resume': z.object({ session: SessionView }),
  /** `damaged`: sessions whose stored row cannot be read as one; they can only be deleted. */
  'session.list': z.object({
    sessions: z.array(SessionView),
    damaged: z.array(DamagedSessionView).default([]),
    /** Set when this start of Deskhand repaired a damaged database. */
    repair: DatabaseRepairView.nullable().default(null),
  }),
  'session.open': SessionDetail,
  'session.delete': z.object({ sessionId: Id }),
  /** The session as stored with its new title (as a `session.updated` event says to every UI too). */
  'session.rename': z.object({ session: SessionView }),
  /** The session as one JSON document (no secrets, screenshots by file name). */
  'session.export': z.object({ fileName: z.string(), json: z.string() }),
  'step.detail': StepDetail,
  'blackboard.get': BlackboardView,
  'interaction.answer': Empty,
  'interaction.decide': Empty,
  'form.event': Empty,
  'settings.get': SettingsView,
  'settings.set': SettingsView,
  'servers.status': ServersStatusView,
  'servers.check': ServersStatusView,
} satisfies Record<HostCommandType, z.ZodType>;
export type CommandResult<T extends HostCommandType> = z.infer<(typeof CommandResults)[T]>;

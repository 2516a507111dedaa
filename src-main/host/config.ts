import { z } from 'zod';
import { compilePattern } from '../common/patterns';
import { MODEL_KEY_VARIABLES } from './secrets';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** One value of a setting with fixed choices, as the Settings dialog names it. */
interface Choice<V extends string> {
  value: V;
  title: string;
  description: string;
}

/**
 * A setting with fixed choices: stored as its value ("sensitive"), shown in Settings by its title
 * ("Before risky actions only"). The JSON Schema gets `oneOf: [{const, title, description}]`, which
 * JSONForms shows as labelled options, in place of zod's bare `enum` (`settingsSchema` drops that one).
 */
function choices<const V extends string>(options: readonly [Choice<V>, ...Choice<V>[]]) {
  const values = options.map((option) => option.value) as [V, ...V[]];
  return z.enum(values).meta({ oneOf: options.map(({ value, title, description }) => ({ const: value, title, description })) });
}

/** One model endpoint. The API key is not here: it lives in the secret store or the environment. */
export const ModelProfile = z.object({
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'the model endpoint must be an http(s) URL, e.g. http://127.0.0.1:11434/v1' })
    // fetch refuses a URL with credentials; the key has its own place, which keeps it out of logs and the database.
      .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), 'the model endpoint URL cannot carry a user name or password: give the key as OPENAI_API_KEY or in Settings')
    .meta({ title: 'Base URL', description: 'The OpenAI-compatible endpoint, e.g. https://api.openai.com/v1, or http://127.0.0.1:11434/v1 for Ollama.' }),
  model: z.string().min(1, 'name a model').meta({ title: 'Model', description: 'The model name at that endpoint; it must accept images unless screenshots are off.' }),
  /** Ask the endpoint for a JSON object (response_format); off for endpoints that refuse it. */
  jsonMode: z
    .boolean()
    .default(false)
    .meta({ title: 'JSON mode', description: 'Ask the endpoint for JSON replies (response_format); leave it off for endpoints that refuse it.' }),
  timeoutMs: z.number().int().min(1_000).max(600_000).default(120_000).meta({ title: 'Timeout (ms)', description: 'How long one model request may take.' }),
  maxRetries: z.number().int().min(0).max(10).default(2).meta({ title: 'Max retries', description: 'Times a failed model request is tried again.' }),
  /** US dollars per million tokens, for the cost shown per step; 0 = unknown. */
  inputPricePerMTok: z
    .number()
    .min(0)
    .default(0)
    .meta({ title: 'Input price per million tokens', description: 'In US dollars, for the cost shown per step; 0: unknown.' }),
  outputPricePerMTok: z
    .number()
    .min(0)
    .default(0)
    .meta({ title: 'Output price per million tokens', description: 'In US dollars, for the cost shown per step; 0: unknown.' }),
});
export type ModelProfile = z.infer<typeof ModelProfile>;

/** The approval policy's choices, as Settings names and explains them. */
const CONFIRMATION_CHOICES = [
  { value: 'always', title: 'Before every action', description: 'Every step that acts waits for your approval; steps that only look do not.' },
  {
    value: 'sensitive',
    title: 'Before risky actions only',
    description: 'Shell commands, steps the agent marks as risky and clicks or typing on controls with the words below (Send, Delete, Pay, …) wait for your approval.',
  },
  { value: 'never', title: 'Never', description: 'Nothing waits for your approval; only commands on the deny list (and removing a whole system folder) are still stopped.' },
] as const;

export const ConfirmationMode = choices(CONFIRMATION_CHOICES);
export type ConfirmationMode = z.infer<typeof ConfirmationMode>;

/** A regular expression the safety policy runs; one that does not parse is refused here, not at the next start. */
const CommandPattern = z
  .string()
  .max(1_000)
  .superRefine((source, ctx) => {
    try {
      compilePattern(source);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `not a valid regular expression (${error instanceof Error ? error.message : String(error)})` });
    }
  });

export const SafetyConfig = z.object({
  /** always: every action waits for approval; sensitive: only risky ones; never: none (the deny list still holds). */
  confirmation: ConfirmationMode.default('sensitive').meta({
    title: 'Ask for approval',
    // The dialog shows one description per field, not per option: one line for each choice.
    description: CONFIRMATION_CHOICES.map((choice) => `${choice.title}: ${choice.description}`).join('\n'),
  }),
  /** Every shell command is sensitive (the default), or only those matching the patterns below. */
  confirmAllShellCommands: z
    .boolean()
    .default(true)
    .meta({ title: 'Confirm all shell commands', description: 'On: every shell command waits for approval. Off: only those matching the sensitive command patterns.' }),
  /** Regular expressions (case-insensitive) for shell commands that need approval. */
  sensitiveCommandPatterns: z
    .array(CommandPattern)
    .default([
      String.raw`\brm\s+(-[a-z]*[rf]|--recursive|--force)`,
      String.raw`\b(del|erase|rmdir|rd)\b`,
      String.raw`\bformat\b`,
      String.raw`\bmkfs`,
      String.raw`\b(shutdown|reboot|poweroff|halt)\b`,
      String.raw`\bsudo\b`,
      String.raw`\b(curl|wget)\b[^|]*\|\s*(ba|z|da)?sh\b`,
      String.raw`\bdd\s+if=`,
      String.raw`\bchmod\s+-R\b`,
      String.raw`\bgit\s+push\b.*--force`,
    ])
    .meta({
      title: 'Sensitive command patterns',
      description: 'Regular expressions (any case) for shell commands that wait for approval when not every shell command does.',
    }),
  /** Words in the text of the control acted on (the reply's ControlText) that make a click, typing or key press sensitive. */
  sensitiveControlWords: z
    .array(z.string())
    .default(['Send', 'Delete', 'Remove', 'Pay', 'Buy', 'Purchase', 'Order', 'Submit', 'Install', 'Uninstall', 'Format'])
    .meta({ title: 'Sensitive control words', description: 'A click, typing or key press on a control whose text has one of these words waits for approval.' }),
  /**
   * Shell command patterns that never run, approval or not. Besides these, a built-in rule that no
   * setting removes denies removing or recursively re-owning a whole tree (the root, a top-level system
   * folder, home), however it is spelled.
   */
  denyCommandPatterns: z
    .array(CommandPattern)
    .default([String.raw`:\(\)\s*\{\s*:\|:&\s*\};:`])
    .meta({ title: 'Denied command patterns', description: 'Regular expressions for shell commands that never run, approved or not, whatever the approval setting.' }),
});
export type SafetyConfig = z.infer<typeof SafetyConfig>;

const McpServerName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'a short lowercase name')
  .meta({ title: 'Name', description: 'A short lowercase name (letters, digits, - and _), unique among the servers.' });
const McpTrusted = z
  .boolean()
  .default(false)
  .meta({ title: 'Trusted', description: "Off: each call of this server's tools waits for approval. On: they are treated as the device's own tools." });

export const ExternalMcpServer = z.discriminatedUnion('transport', [
  z
    .object({
      name: McpServerName,
      transport: z.literal('stdio').meta({ title: 'Transport' }),
      command: z.string().min(1).meta({ title: 'Command', description: 'The program Deskhand starts for this server.' }),
      args: z.array(z.string()).default([]).meta({ title: 'Arguments' }),
      trusted: McpTrusted,
    })
    .meta({ title: 'Program on this computer (stdio)' }),
  z.object({
    name: McpServerName,
    transport: z.literal('http').meta({ title: 'Transport' }),
    url: z
      .url({ protocol: /^https?$/, error: 'an MCP server URL must be http(s), e.g. http://127.0.0.1:8931/mcp' })
      // fetch refuses a URL with credentials, and its error (logged, shown in the server's status) repeats them.
      .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), 'an MCP server URL cannot carry a user name or password: put the token in an environment variable and give its name as Token variable')
      .meta({ title: 'URL', description: 'The server\'s address, e.g. http://127.0.0.1:8931/mcp.' }),
    /**
     * Name of the environment variable holding the bearer token, never the token itself: one pasted here
     * would sit in settings.json and be repeated in the error saying no such variable is set.
     */
    tokenSecret: z
      .string()
      // Empty: no token (what a form sends for a field left blank).
      .regex(/^([A-Z_][A-Z0-9_]{0,63})?$/, 'the name of the environment variable holding the token, in capitals (e.g. GITHUB_MCP_TOKEN), not the token itself')
      // The server would be sent the model provider's key as its bearer token.
      .refine((name) => !MODEL_KEY_VARIABLES.has(name), {
        error: (issue) =>
          `Token variable cannot be ${String(issue.input)}: it holds the model's API key, which would be sent to this MCP server; give the server's token a variable of its own`,
      })
      .optional()
      .meta({
        title: 'Token variable',
        description:
          'The name of the environment variable holding the bearer token, in capitals (e.g. GITHUB_MCP_TOKEN), never the token itself ' +
          `nor the variable of the model's API key (${[...MODEL_KEY_VARIABLES].join(', ')}); empty: no token.`,
      }),
    trusted: McpTrusted,
  }).meta({ title: 'Server at a URL (HTTP)' }),
]);
export type ExternalMcpServer = z.infer<typeof ExternalMcpServer>;

/** Every setting Deskhand has; the settings form is generated from this schema. */
export const DeskhandConfig = z.object({
  /** Model profiles by name; null: no endpoint configured yet (a run then says how to set one). */
  models: z
    .object({
      host: ModelProfile.nullable()
        .default(null)
        .meta({ title: 'Host', description: "The HostAgent's model, which splits a request into sub-tasks; also the other agents' unless App is set." }),
      /** The AppAgent's and ShellAgent's model; null: the host's. */
      app: ModelProfile.nullable()
        .default(null)
        .meta({ title: 'App', description: "The AppAgent's and ShellAgent's model; empty: the host's." }),
    })
    .prefault({})
    .meta({ title: 'Models' }),
  agent: z
    .object({
      /** Send screenshots to the model (off for text-only models: windows and controls as text). */
      visual: z
        .boolean()
        .default(true)
        .meta({ title: 'Visual', description: 'Send screenshots to the model; off for text-only models, which get windows and controls as text.' }),
      /** Let the AppAgent run several actions in one step (Actions). */
      actionSequence: z
        .boolean()
        .default(true)
        .meta({ title: 'Action sequences', description: 'Let the AppAgent run several actions in one step.' }),
      /** A model that speaks 0..1000 coordinates instead of screenshot pixels. */
      normalizedCoordinates: z
        .boolean()
        .default(false)
        .meta({ title: 'Normalized coordinates', description: 'For a model that gives positions from 0 to 1000 instead of screenshot pixels.' }),
    })
    .prefault({})
    .meta({ title: 'Agent' }),
  limits: z
    .object({
      maxStepsPerRound: z
        .number()
        .int()
        .min(1)
        .max(1_000)
        .default(30)
        .meta({ title: 'Max steps per round', description: 'Steps one request may take before its run ends.' }),
      maxStepsPerSession: z
        .number()
        .int()
        .min(1)
        .max(10_000)
        .default(200)
        .meta({ title: 'Max steps per session', description: 'Steps a session may take over all its requests.' }),
      /** Invalid replies or failed actions in a row before the run ends with ERROR. */
      maxConsecutiveErrors: z
        .number()
        .int()
        .min(1)
        .max(20)
        .default(3)
        .meta({ title: 'Max consecutive errors', description: 'Invalid replies or failed actions in a row before the run ends with an error.' }),
      /** Model repair attempts within one step for a reply that does not fit the format. */
      maxRepairs: z
        .number()
        .int()
        .min(0)
        .max(5)
        .default(1)
        .meta({ title: 'Max repairs', description: 'Times within one step the model is asked to fix a reply that does not fit the format.' }),
      /** A run pauses before a step while less than this is free on the data folder's disk (0: never). */
      minFreeDiskMb: z
        .number()
        .int()
        .min(0)
        .max(100_000)
        .default(100)
        .meta({ title: 'Free disk space to keep (MB)', description: 'A run pauses before its next step while less is free where Deskhand keeps its data; 0 turns the check off.' }),
    })
    .prefault({})
    .meta({ title: 'Limits' }),
  prompt: z
    .object({
      /** Previous steps shown to the model; older ones are left out so the prompt stays bounded. */
      recentSteps: z
        .number()
        .int()
        .min(0)
        .max(50)
        .default(8)
        .meta({ title: 'Recent steps', description: 'Previous steps shown to the model; older ones are left out so the prompt stays bounded.' }),
      /** Trajectory fields kept on the blackboard. */
      historyKeys: z
        .array(z.string())
        .default(['Step', 'Agent', 'Subtask', 'Action', 'Status', 'Result', 'Comment'])
        .meta({ title: 'History keys', description: 'The fields of each step kept on the blackboard.' }),
      /** Characters the blackboard may take in a prompt. */
      blackboardBudgetChars: z
        .number()
        .int()
        .min(500)
        .max(50_000)
        .default(4_000)
        .meta({ title: 'Blackboard budget (characters)', description: 'Characters the blackboard (notes shared between the agents) may take in a prompt.' }),
      /** Q&A pairs from earlier sessions loaded into a new one. */
      carriedQuestions: z
        .number()
        .int()
        .min(0)
        .max(50)
        .default(5)
        .meta({ title: 'Carried questions', description: 'Questions answered in earlier sessions, with their answers, given to a new one.' }),
    })
    .prefault({})
    .meta({ title: 'Prompt' }),
  device: z
    .object({
      toolTimeoutMs: z
        .number()
        .int()
        .min(1_000)
        .max(600_000)
        .default(30_000)
        .meta({ title: 'Tool timeout (ms)', description: 'How long one action on the computer (a click, a screenshot, a command) may take.' }),
      /** auto: lossless PNG for windows of text and controls, JPEG at screenshotQuality for photographic ones. */
      screenshotFormat: choices([
        { value: 'auto', title: 'Automatic', description: 'PNG for windows of text and controls, JPEG for photographic ones.' },
        { value: 'png', title: 'PNG (lossless)', description: 'Every screenshot as PNG.' },
        { value: 'jpeg', title: 'JPEG', description: 'Every screenshot as JPEG.' },
        { value: 'webp', title: 'WebP', description: 'Every screenshot as WebP.' },
      ])
        .default('auto')
        .meta({ title: 'Screenshot format', description: 'Automatic: PNG for windows of text and controls, JPEG for photographic ones.' }),
      screenshotQuality: z
        .number()
        .int()
        .min(10)
        .max(100)
        .default(70)
        .meta({ title: 'Screenshot quality', description: 'JPEG and WebP quality, from 10 to 100.' }),
      screenshotMaxLongEdge: z
        .number()
        .int()
        .min(320)
        .max(4096)
        .default(1280)
        .meta({ title: 'Screenshot long edge (pixels)', description: 'Larger screenshots are scaled down to this many pixels on their longer side.' }),
    })
    .prefault({})
    .meta({ title: 'Device' }),
  safety: SafetyConfig.prefault({}).meta({ title: 'Safety' }),
  mcpServers: z
    .array(ExternalMcpServer)
    .default([])
    .superRefine((servers, ctx) => {
      const seen = new Set<string>();
      servers.forEach((server, index) => {
        if (seen.has(server.name)) {
          ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `another server is already named '${server.name}'` });
        }
        seen.add(server.name);
      });
    })
    .meta({ title: 'MCP servers', description: 'Other MCP servers whose tools the agents may call.' }),
});
export type DeskhandConfig = z.infer<typeof DeskhandConfig>;

/** Whether two model base URLs are the same server (scheme, host and port): a key may go to both. */
export function sameEndpoint(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * The model profiles that will be sent their own key: the host's, and the agents' when it is on
 * another endpoint (on the same one it borrows the host's key).
 */
export function profilesNeedingKeys(config: Pick<DeskhandConfig, 'models'>): Array<'host' | 'app'> {
  const { host, app } = config.models;
  if (!host) return [];
  return app && !sameEndpoint(app.baseUrl, host.baseUrl) ? ['host', 'app'] : ['host'];
}

/** The environment variables that hold MCP servers' tokens: secrets, whatever they are called. */
export function tokenVariables(config: Pick<DeskhandConfig, 'mcpServers'>): Set<string> {
  return new Set(config.mcpServers.flatMap((server) => (server.transport === 'http' && server.tokenSecret ? [server.tokenSecret] : [])));
}
export type DeskhandConfigInput = z.input<typeof DeskhandConfig>;

function intFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, got '${raw}'`);
  return value;
}

const YES = new Set(['1', 'true', 'yes', 'on']);
const NO = new Set(['0', 'false', 'no', 'off']);

function flagFromEnv(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (YES.has(raw)) return true;
  if (NO.has(raw)) return false;
  throw new Error(`${name} must be 1 or 0 (true or false), got '${env[name]}'`);
}

/** The environment variable behind each setting configFromEnv fills, for its errors. */
const ENV_OF_PATH: Record<string, string> = {
  'models.host.baseUrl': 'OPENAI_BASE_URL',
  'models.host.model': 'DESKHAND_MODEL',
  'models.host.timeoutMs': 'DESKHAND_MODEL_TIMEOUT_MS',
  'models.host.jsonMode': 'DESKHAND_JSON_MODE',
  'limits.maxStepsPerRound': 'DESKHAND_MAX_STEPS',
  'safety.confirmation': 'DESKHAND_CONFIRM',
};

/**
 * The settings that come from the environment: OPENAI_BASE_URL and
 * DESKHAND_MODEL make the host model profile; the key (OPENAI_API_KEY) is read by the secret store.
 * A bad value is an error naming its variable.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): DeskhandConfig {
  const baseUrl = env.OPENAI_BASE_URL?.trim() || undefined;
  const apiKey = env.OPENAI_API_KEY?.trim() || undefined;
  const host =
    baseUrl || apiKey
      ? {
          baseUrl: baseUrl ?? DEFAULT_BASE_URL,
          model: env.DESKHAND_MODEL?.trim() || 'gpt-4o',
          jsonMode: flagFromEnv(env, 'DESKHAND_JSON_MODE'),
          timeoutMs: intFromEnv(env, 'DESKHAND_MODEL_TIMEOUT_MS'),
        }
      : null;
  const parsed = DeskhandConfig.safeParse({
    models: { host },
    limits: { maxStepsPerRound: intFromEnv(env, 'DESKHAND_MAX_STEPS') },
    safety: env.DESKHAND_CONFIRM ? { confirmation: env.DESKHAND_CONFIRM.trim().toLowerCase() } : undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') ?? '';
    const variable = ENV_OF_PATH[path];
    throw new Error(variable ? `${variable} is not valid: ${issue?.message}` : `invalid configuration at ${path}: ${issue?.message}`);
  }
  return parsed.data;
}

/** The key for a profile from the environment; local endpoints need none. */
export function apiKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | null {
  return env.OPENAI_API_KEY?.trim() || null;
}

export const NO_MODEL_MESSAGE =
  'No model is configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible endpoint, ' +
  'DESKHAND_MODEL for the model name), or set a model in Settings.';

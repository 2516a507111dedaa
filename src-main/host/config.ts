import { z } from 'zod';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export const ModelConfig = z.object({
  baseUrl: z.url({ error: 'the model endpoint must be a URL, e.g. http://127.0.0.1:11434/v1' }),
  apiKey: z.string(),
  model: z.string().min(1, 'name a model'),
  jsonMode: z.boolean().default(false),
  timeoutMs: z.number().int().min(1_000).max(600_000).default(120_000),
  maxRetries: z.number().int().min(0).max(10).default(2),
});
export type ModelConfig = z.infer<typeof ModelConfig>;

export const DeskhandConfig = z.object({
  /** null: no endpoint configured yet; a run then fails at once with a message saying how to set one. */
  model: ModelConfig.nullable(),
  limits: z
    .object({
      maxStepsPerRound: z.number().int().min(1).max(1_000).default(30),
      /** Invalid replies or failed actions in a row before the run ends with ERROR. */
      maxConsecutiveErrors: z.number().int().min(1).max(20).default(3),
    })
    .prefault({}),
  prompt: z
    .object({
      /** Previous steps shown to the model; older ones are left out so the prompt stays bounded. */
      recentSteps: z.number().int().min(0).max(50).default(8),
    })
    .prefault({}),
  device: z
    .object({
      toolTimeoutMs: z.number().int().min(1_000).max(600_000).default(30_000),
      screenshotFormat: z.enum(['jpeg', 'webp']).default('jpeg'),
      screenshotQuality: z.number().int().min(10).max(100).default(70),
      screenshotMaxLongEdge: z.number().int().min(320).max(4096).default(1280),
    })
    .prefault({}),
});
export type DeskhandConfig = z.infer<typeof DeskhandConfig>;

function intFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, got '${raw}'`);
  return value;
}

/**
 * Reads OPENAI_API_KEY, OPENAI_BASE_URL and DESKHAND_MODEL (DESIGN.md section 8). A local endpoint
 * (base URL set, no key) is fine: such servers ignore the key. Invalid values are a clear error.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): DeskhandConfig {
  const baseUrl = env.OPENAI_BASE_URL?.trim() || undefined;
  const apiKey = env.OPENAI_API_KEY?.trim() || undefined;
  const model =
    baseUrl || apiKey
      ? {
          baseUrl: baseUrl ?? DEFAULT_BASE_URL,
          apiKey: apiKey ?? 'not-needed',
          model: env.DESKHAND_MODEL?.trim() || 'gpt-4o',
          jsonMode: env.DESKHAND_JSON_MODE === '1',
          timeoutMs: intFromEnv(env, 'DESKHAND_MODEL_TIMEOUT_MS'),
        }
      : null;
  const parsed = DeskhandConfig.safeParse({
    model,
    limits: { maxStepsPerRound: intFromEnv(env, 'DESKHAND_MAX_STEPS') },
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid configuration at ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

export const NO_MODEL_MESSAGE =
  'No model is configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible endpoint, ' +
  'DESKHAND_MODEL for the model name), then start Deskhand again.';

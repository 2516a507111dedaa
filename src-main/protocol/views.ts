import { z } from 'zod';
import { AgentStatus, SessionMode, SessionStatus } from './status';

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
  index: z.number().int().nonnegative(),
  agent: z.string(),
  status: AgentStatus,
  observation: z.string(),
  thought: z.string(),
  action: ActionView.nullable(),
  /** The action in words, e.g. "Type 'echo hi' at (10, 20)". */
  actionText: z.string(),
  result: z.string().nullable(),
  error: z.string().nullable(),
  screenshot: ScreenshotRef.nullable(),
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
  tokens: TokenUsage,
});
export type StepView = z.infer<typeof StepView>;

export const SessionView = z.object({
  id: z.string(),
  title: z.string(),
  request: z.string(),
  mode: SessionMode,
  status: SessionStatus,
  createdAt: z.number(),
  updatedAt: z.number(),
  stepCount: z.number().int().nonnegative(),
  result: z.string().nullable(),
});
export type SessionView = z.infer<typeof SessionView>;

export const SessionDetail = z.object({
  session: SessionView,
  steps: z.array(StepView),
});
export type SessionDetail = z.infer<typeof SessionDetail>;

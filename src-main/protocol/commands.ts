import { z } from 'zod';
import { SessionMode } from './status';
import { SessionDetail, SessionView } from './views';

/** The longest request a user may type; longer text is refused, not cut. */
export const MAX_REQUEST_CHARS = 20_000;

const RequestId = z.string().min(1).max(64);
const SessionId = z.string().min(1).max(64);

/**
 * Commands from a UI (renderer, CLI, test) to the host. Each carries an id that its reply repeats.
 * `strict()` refuses unknown fields so a typo is an error, not a silently ignored option.
 */
export const HostCommand = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('session.start'),
      id: RequestId,
      request: z.string().trim().min(1, 'the request is empty').max(MAX_REQUEST_CHARS),
      mode: SessionMode.default('desktop'),
    })
    .strict(),
  z.object({ type: z.literal('session.stop'), id: RequestId, sessionId: SessionId }).strict(),
  z.object({ type: z.literal('session.list'), id: RequestId }).strict(),
  z.object({ type: z.literal('session.open'), id: RequestId, sessionId: SessionId }).strict(),
]);
export type HostCommand = z.infer<typeof HostCommand>;
export type HostCommandInput = z.input<typeof HostCommand>;
export type HostCommandType = HostCommand['type'];

/** What a successful reply carries, per command type. */
export const CommandResults = {
  'session.start': z.object({ session: SessionView }),
  'session.stop': z.object({ sessionId: SessionId, stopped: z.boolean() }),
  'session.list': z.object({ sessions: z.array(SessionView) }),
  'session.open': SessionDetail,
} satisfies Record<HostCommandType, z.ZodType>;
export type CommandResult<T extends HostCommandType> = z.infer<(typeof CommandResults)[T]>;

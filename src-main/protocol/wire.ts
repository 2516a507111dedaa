import { z } from 'zod';
import { HostEvent } from './events';

/** The longest protocol message a host accepts, in UTF-8 bytes; a request of 20,000 characters fits many times over. */
export const MAX_MESSAGE_BYTES = 256 * 1024;

export const ErrorCode = z.enum(['bad_message', 'not_found', 'conflict', 'internal', 'unavailable']);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ReplyOk = z.object({ type: z.literal('reply'), id: z.string(), ok: z.literal(true), result: z.unknown() });
export const ReplyError = z.object({
  type: z.literal('reply'),
  /** null when the message was so broken that its id could not be read. */
  id: z.string().nullable(),
  ok: z.literal(false),
  error: z.object({ code: ErrorCode, message: z.string() }),
});
export const EventMessage = z.object({ type: z.literal('event'), event: HostEvent });

/** Everything the host sends to a UI over a bridge. */
export const HostMessage = z.union([ReplyOk, ReplyError, EventMessage]);
export type HostMessage = z.infer<typeof HostMessage>;
export type ReplyErrorMessage = z.infer<typeof ReplyError>;

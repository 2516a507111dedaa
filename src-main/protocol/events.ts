import { z } from 'zod';
import { SessionStatus } from './status';
import { SessionView, StepView } from './views';

/** Events carry deltas: one session or one step at a time, never the whole state. */
export const HostEvent = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('session.started'), session: SessionView }),
  z.object({
    kind: z.literal('session.ended'),
    sessionId: z.string(),
    status: SessionStatus,
    result: z.string().nullable(),
  }),
  z.object({ kind: z.literal('step.added'), step: StepView }),
  z.object({
    kind: z.literal('status.changed'),
    sessionId: z.string(),
    status: SessionStatus,
    /** Human words for what is happening now, e.g. "Asking the model (step 3)". */
    detail: z.string(),
  }),
]);
export type HostEvent = z.infer<typeof HostEvent>;

import { z } from 'zod';
import { PauseCause, SessionStatus } from './status';
import { FormView, Interaction, SessionView, StepView } from './views';

/** Events carry deltas: one session, step, interaction or form at a time, never the whole state. */
export const HostEvent = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('session.started'), session: SessionView }),
  /** Counters, title or status changed (tokens, cost, step count, rounds). */
  z.object({ kind: z.literal('session.updated'), session: SessionView }),
  z.object({
    kind: z.literal('session.ended'),
    sessionId: z.string(),
    status: SessionStatus,
    result: z.string().nullable(),
  }),
  z.object({ kind: z.literal('session.deleted'), sessionId: z.string() }),
  z.object({ kind: z.literal('step.added'), step: StepView }),
  z.object({
    kind: z.literal('status.changed'),
    sessionId: z.string(),
    status: SessionStatus,
    /** Human words for what is happening now, e.g. "Asking the model (step 3)". */
    detail: z.string(),
    /** With status `paused`: why. */
    pause: PauseCause.optional(),
  }),
  z.object({ kind: z.literal('interaction.requested'), interaction: Interaction }),
  z.object({
    kind: z.literal('interaction.resolved'),
    sessionId: z.string(),
    interactionId: z.string(),
    outcome: z.enum(['answered', 'approved', 'rejected', 'cancelled']),
  }),
  /** A form was created or changed (the whole spec: forms are small and capped). */
  z.object({ kind: z.literal('form.updated'), form: FormView }),
]);
export type HostEvent = z.infer<typeof HostEvent>;

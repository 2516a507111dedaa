import { z } from 'zod';
import { MAX_QUESTIONS } from '../protocol';

/** Statuses a model may give; ERROR is Deskhand's own and never taken from a model. */
export const ModelStatus = z.enum(['CONTINUE', 'PENDING', 'CONFIRM', 'SCREENSHOT', 'FINISH', 'FAIL']);
export type ModelStatus = z.infer<typeof ModelStatus>;

/**
 * Models often send one string where a list is asked for; accept it as a list of one. Blank entries
 * (the reply format's own `[""]`) are no entries.
 */
const StringList = z
  .union([z.array(z.string()), z.string().transform((text) => [text])])
  .nullish()
  .transform((list) => (list ?? []).filter((text) => text.trim() !== ''));
/** Questions for the user: no more than one answer from the UI can carry, or they could never be answered. */
const Questions = StringList.refine((questions) => questions.length <= MAX_QUESTIONS, {
  message: `ask at most ${MAX_QUESTIONS} questions at once`,
});
/** A text field; null (as many models write "none") is no text, not a reply to send back for repair. */
const Text = z
  .string()
  .nullish()
  .transform((text) => text ?? '');
/** Arguments; null is none, as for Text. */
const Args = z
  .record(z.string(), z.unknown())
  .nullish()
  .transform((args) => args ?? {});

/**
 * The reply format shows every field, placeholders included, and models copy them: an Actions entry
 * with nothing in it, a Form with an empty schema, AppsToOpen with no application. Each means "none".
 */
const isEmptyRecord = (record: Record<string, unknown> | undefined): boolean => record === undefined || Object.keys(record).length === 0;

const ActionStep = z
  .object({
    Function: Text,
    Args,
    ControlLabel: Text,
    ControlText: Text,
    Status: Text,
  })
  .strict();

/** The AppAgent/ShellAgent reply (a contract: programs that drive Deskhand's model rely on these fields). */
export const AppAgentReply = z
  .object({
    Observation: Text,
    Thought: z.string({ error: 'Thought is required (a string)' }),
    ControlLabel: Text,
    ControlText: Text,
    Function: Text,
    Args,
    Status: ModelStatus,
    Plan: StringList,
    Comment: Text,
    Questions,
    SaveScreenshot: z.object({ save: z.boolean(), reason: Text }).strict().nullish(),
    Actions: z
      .array(ActionStep)
      .max(20)
      .nullish()
      .transform((steps) => {
        const real = steps?.filter((step) => step.Function.trim() || !isEmptyRecord(step.Args) || step.ControlLabel.trim() || step.ControlText.trim());
        return real?.length ? real : null;
      }),
    Form: z
      .object({
        schema: z.record(z.string(), z.unknown()),
        uischema: z.record(z.string(), z.unknown()).optional(),
        data: z.record(z.string(), z.unknown()).optional(),
      })
      .nullish()
      .transform((form) => (form && isEmptyRecord(form.schema) && isEmptyRecord(form.uischema) && isEmptyRecord(form.data) ? null : form)),
  })
  .strict()
  .superRefine((reply, ctx) => {
    const wantsAction = reply.Status === 'CONTINUE' || reply.Status === 'CONFIRM';
    if (wantsAction && !reply.Function && !reply.Actions?.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['Function'],
        message: `Status ${reply.Status} needs an action: give Function and Args (or Actions)`,
      });
    }
    if (reply.Status === 'PENDING' && !reply.Questions.some((question) => question.trim()) && !reply.Form) {
      ctx.addIssue({ code: 'custom', path: ['Questions'], message: 'Status PENDING needs at least one question (or a Form)' });
    }
  });
export type AppAgentReply = z.infer<typeof AppAgentReply>;

export const HostStatus = z.enum(['CONTINUE', 'PENDING', 'FINISH', 'FAIL']);

/** The HostAgent reply (a contract: programs that drive Deskhand's model rely on these fields). */
export const HostAgentReply = z
  .object({
    Observation: Text,
    Thought: z.string({ error: 'Thought is required (a string)' }),
    'Current Sub-Task': Text,
    Message: StringList,
    ControlLabel: Text,
    ControlText: Text,
    Plan: StringList,
    Status: HostStatus,
    Comment: Text,
    Questions,
    AppsToOpen: z
      .object({ APP: z.string().max(200), file_path: z.string().max(4096).nullish().transform((path) => path ?? '') })
      .strict()
      .nullish()
      .transform((open) => (open && (open.APP.trim() || open.file_path.trim()) ? open : null))
      .refine((open) => open === null || open.APP.trim() !== '', {
        message: 'APP must name the application that opens file_path',
        path: ['APP'],
      }),
  })
  .strict()
  .superRefine((reply, ctx) => {
    if (reply.Status === 'CONTINUE') {
      if (!reply['Current Sub-Task'].trim()) {
        ctx.addIssue({ code: 'custom', path: ['Current Sub-Task'], message: 'Status CONTINUE needs the sub-task to hand over' });
      }
      if (!reply.ControlLabel.trim() && !reply.ControlText.trim() && !reply.AppsToOpen) {
        ctx.addIssue({ code: 'custom', path: ['ControlLabel'], message: 'Status CONTINUE needs a target: a window id, ControlText, or AppsToOpen' });
      }
    }
    if (reply.Status === 'PENDING' && !reply.Questions.some((question) => question.trim())) {
      ctx.addIssue({ code: 'custom', path: ['Questions'], message: 'Status PENDING needs at least one question' });
    }
  });
export type HostAgentReply = z.infer<typeof HostAgentReply>;

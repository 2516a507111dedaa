import type { Strategy } from '../processor/processor';
import { K, type Observation } from '../step-keys';
import { runtimeOf } from './observe';

/** MEMORY_UPDATE: a screenshot the model marked worth keeping goes on the blackboard. */
export const saveScreenshotStrategy: Strategy = {
  name: 'save-screenshot',
  phase: 'MEMORY_UPDATE',
  needs: [K.reply, K.screenshot],
  provides: [K.savedScreenshot],
  async run(ctx) {
    const reply = ctx.get<{ SaveScreenshot?: { save: boolean; reason: string } | null }>(K.reply);
    const image = ctx.get<Observation | null>(K.screenshot);
    if (image && reply.SaveScreenshot?.save) ctx.set(K.savedScreenshot, { reason: reply.SaveScreenshot.reason || 'saved by the agent' });
  },
};

/**
 * LLM_INTERACTION, after the reply: a `Form` in the reply creates or updates the agent's form (checked
 * first: a bad spec fails the step before anything runs); a reply without one closes it.
 */
export const formStrategy: Strategy = {
  name: 'agent-form',
  phase: 'LLM_INTERACTION',
  needs: [K.reply],
  provides: ['form'],
  async run(ctx) {
    const runtime = runtimeOf(ctx);
    const agent = ctx.get<{ name: string }>('agent');
    const reply = ctx.get<{ Form?: unknown }>(K.reply);
    if (reply.Form) ctx.set('form', runtime.forms.open(agent.name, reply.Form as Parameters<typeof runtime.forms.open>[1]));
    else runtime.forms.close(agent.name);
  },
};

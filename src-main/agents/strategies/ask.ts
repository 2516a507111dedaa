import type { z } from 'zod';
import { askModel } from '../../llm/ask-model';
import type { Strategy } from '../processor/processor';
import type { ModelWithPrices } from '../runtime';
import { K, type ChatMessage } from '../step-keys';
import { runtimeOf } from './observe';

/** LLM_INTERACTION: asks the model, repairs a bad reply a bounded number of times, and checks it strictly. */
export function modelStrategy<S extends z.ZodType>(schema: S, pickModel: (models: { host: ModelWithPrices; app: ModelWithPrices }) => ModelWithPrices): Strategy {
  return {
    name: 'ask-model',
    phase: 'LLM_INTERACTION',
    needs: [K.messages],
    provides: [K.exchange, K.reply],
    async run(ctx) {
      const runtime = runtimeOf(ctx);
      runtime.progress('Asking the model');
      const exchange = await askModel(pickModel(runtime.models).client, ctx.get<ChatMessage[]>(K.messages), schema, {
        maxRepairs: runtime.config.limits.maxRepairs,
        signal: runtime.signal,
      });
      ctx.set(K.exchange, exchange);
      if (exchange.failure !== undefined) throw exchange.failure;
      if (!exchange.reply) throw new Error(`invalid model reply: ${exchange.error}`);
      ctx.set(K.reply, exchange.reply);
    },
  };
}

import { describe, expect, it } from 'vitest';
import { errorMiddleware, PHASE_TIMINGS, StrategyError, timingMiddleware } from '../../src-main/agents/processor/middleware';
import { ComposedStrategy, ProcessorTemplate, type Strategy } from '../../src-main/agents/processor/processor';
import { MissingDependencyError, StepContext } from '../../src-main/agents/processor/step-context';

function strategy(name: string, phase: Strategy['phase'], needs: string[], provides: string[], run?: (ctx: StepContext) => void): Strategy {
  return {
    name,
    phase,
    needs,
    provides,
    async run(ctx) {
      if (run) run(ctx);
      else for (const key of provides) ctx.set(key, `${name}:${key}`);
    },
  };
}

describe('ProcessorTemplate', () => {
  it('runs strategies in phase order whatever order they are given', async () => {
    const order: string[] = [];
    const track = (name: string, phase: Strategy['phase']) => strategy(name, phase, [], [], () => order.push(name));
    const processor = new ProcessorTemplate([track('memory', 'MEMORY_UPDATE'), track('act', 'ACTION_EXECUTION'), track('look', 'DATA_COLLECTION'), track('ask', 'LLM_INTERACTION')]);
    await processor.run(new StepContext());
    expect(order).toEqual(['look', 'ask', 'act', 'memory']);
  });

  it('refuses at build time a strategy whose need nothing earlier provides', () => {
    expect(
      () => new ProcessorTemplate([strategy('ask', 'LLM_INTERACTION', ['screenshot'], ['reply']), strategy('look', 'ACTION_EXECUTION', [], ['screenshot'])]),
    ).toThrow(/ask \(LLM_INTERACTION\) needs screenshot, which no earlier strategy provides/);
    expect(() => new ProcessorTemplate([strategy('ask', 'LLM_INTERACTION', ['runtime'], [])], [], ['runtime'])).not.toThrow();
  });

  it('fails the step at run time when a declared value was not set after all', async () => {
    const liar = strategy('look', 'DATA_COLLECTION', [], ['screenshot'], () => undefined);
    const processor = new ProcessorTemplate([liar, strategy('ask', 'LLM_INTERACTION', ['screenshot'], [])]);
    await expect(processor.run(new StepContext())).rejects.toThrow(MissingDependencyError);
    await expect(processor.run(new StepContext())).rejects.toThrow(/ask needs 'screenshot'/);
  });

  it('composes strategies of one phase and works out their outside needs', async () => {
    const composed = new ComposedStrategy('act', 'ACTION_EXECUTION', [
      strategy('plan', 'ACTION_EXECUTION', ['reply'], ['plan']),
      strategy('run', 'ACTION_EXECUTION', ['plan'], ['outcome']),
    ]);
    expect(composed.needs).toEqual(['reply']);
    expect(composed.provides).toEqual(['plan', 'outcome']);
    const ctx = new StepContext({ reply: 'r' });
    await new ProcessorTemplate([composed], [], ['reply']).run(ctx);
    expect(ctx.get('outcome')).toBe('run:outcome');
    expect(() => new ComposedStrategy('x', 'ACTION_EXECUTION', [strategy('y', 'MEMORY_UPDATE', [], [])])).toThrow(/belongs to MEMORY_UPDATE/);
  });

  it('wraps every strategy in the middleware chain: timings per phase, errors named by strategy', async () => {
    const boom = strategy('act', 'ACTION_EXECUTION', [], [], () => {
      throw new Error('the device is gone');
    });
    const processor = new ProcessorTemplate([strategy('look', 'DATA_COLLECTION', [], ['a']), boom], [timingMiddleware, errorMiddleware(() => false)]);
    const ctx = new StepContext();
    const error = await processor.run(ctx).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StrategyError);
    expect(error).toMatchObject({ strategy: 'act', phase: 'ACTION_EXECUTION', message: 'the device is gone' });
    expect(Object.keys(ctx.get<Record<string, number>>(PHASE_TIMINGS))).toEqual(['DATA_COLLECTION', 'ACTION_EXECUTION']);
  });
});

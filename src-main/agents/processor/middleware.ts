import type { Middleware } from './processor';

export const PHASE_TIMINGS = 'phaseMs';
/** A step's timing beside the phases': of LLM_INTERACTION, the time spent waiting for the model. */
export const MODEL_REPLY_TIMING = 'MODEL_REPLY';

/** Adds each strategy's time to its phase's total in the context (`phaseMs`), even when it throws. */
export const timingMiddleware: Middleware = async ({ strategy, ctx }, next) => {
  const started = performance.now();
  try {
    await next();
  } finally {
    const timings = ctx.maybe<Record<string, number>>(PHASE_TIMINGS) ?? {};
    timings[strategy.phase] = (timings[strategy.phase] ?? 0) + (performance.now() - started);
    ctx.set(PHASE_TIMINGS, timings);
  }
};

/** Logs slow strategies and failures with the strategy's name (to stderr: stdout may be a protocol). */
export function loggingMiddleware(log: (line: string) => void, slowMs = 5_000): Middleware {
  return async ({ strategy }, next) => {
    const started = performance.now();
    try {
      await next();
    } catch (error) {
      log(`${strategy.phase}/${strategy.name} failed: ${(error as Error).message}`);
      throw error;
    }
    const took = performance.now() - started;
    if (took > slowMs) log(`${strategy.phase}/${strategy.name} took ${Math.round(took)} ms`);
  };
}

/** A failure inside a strategy, named so the step's error says where it happened. */
export class StrategyError extends Error {
  constructor(
    readonly strategy: string,
    readonly phase: string,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/**
 * Turns an unexpected exception into a StrategyError carrying the phase and strategy; the agent then
 * records an ERROR step with that message. Control-flow errors (stop, early end) pass through unchanged.
 */
export function errorMiddleware(passThrough: (error: unknown) => boolean): Middleware {
  return async ({ strategy }, next) => {
    try {
      await next();
    } catch (error) {
      if (passThrough(error) || error instanceof StrategyError) throw error;
      throw new StrategyError(strategy.name, strategy.phase, error);
    }
  };
}

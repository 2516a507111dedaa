import { MissingDependencyError, StepContext } from './step-context';

/** The fixed order of a step (the agent's second level: phases and strategies). */
export const PHASES = ['DATA_COLLECTION', 'LLM_INTERACTION', 'ACTION_EXECUTION', 'MEMORY_UPDATE'] as const;
export type Phase = (typeof PHASES)[number];

/** One piece of a step: declares what it reads and writes in the step context. */
export interface Strategy {
  readonly name: string;
  readonly phase: Phase;
  readonly needs: readonly string[];
  readonly provides: readonly string[];
  run(ctx: StepContext): Promise<void>;
}

/** Several strategies in one phase, run in order; what one provides the next may need. */
export class ComposedStrategy implements Strategy {
  readonly needs: readonly string[];
  readonly provides: readonly string[];

  constructor(
    readonly name: string,
    readonly phase: Phase,
    private readonly parts: readonly Strategy[],
  ) {
    const provided = new Set<string>();
    const needs = new Set<string>();
    for (const part of parts) {
      if (part.phase !== phase) throw new Error(`${name}: ${part.name} belongs to ${part.phase}, not ${phase}`);
      for (const key of part.needs) if (!provided.has(key)) needs.add(key);
      for (const key of part.provides) provided.add(key);
    }
    this.needs = [...needs];
    this.provides = [...provided];
  }

  async run(ctx: StepContext): Promise<void> {
    for (const part of this.parts) {
      checkNeeds(part, ctx);
      await part.run(ctx);
    }
  }
}

export interface StrategyCall {
  strategy: Strategy;
  ctx: StepContext;
}

/** Wraps every strategy call: timings, logging, error handling. Call `next()` to go on. */
export type Middleware = (call: StrategyCall, next: () => Promise<void>) => Promise<void>;

function checkNeeds(strategy: Strategy, ctx: StepContext): void {
  for (const key of strategy.needs) if (!ctx.has(key)) throw new MissingDependencyError(strategy.name, key);
}

/**
 * Runs a step's strategies phase by phase. The needs are checked twice: when the processor is built (a
 * wiring mistake is a start-up error) and before each strategy runs (a value that was not set after all).
 */
export class ProcessorTemplate {
  private readonly ordered: readonly Strategy[];

  constructor(
    strategies: readonly Strategy[],
    private readonly middleware: readonly Middleware[] = [],
    /** Keys the caller puts in the context before the step starts. */
    readonly inputs: readonly string[] = [],
  ) {
    this.ordered = PHASES.flatMap((phase) => strategies.filter((strategy) => strategy.phase === phase));
    const available = new Set(inputs);
    for (const strategy of this.ordered) {
      const missing = strategy.needs.filter((key) => !available.has(key));
      if (missing.length) {
        throw new Error(`processor: ${strategy.name} (${strategy.phase}) needs ${missing.join(', ')}, which no earlier strategy provides`);
      }
      for (const key of strategy.provides) available.add(key);
    }
  }

  get strategies(): readonly Strategy[] {
    return this.ordered;
  }

  /** Runs every strategy in phase order; a strategy's exception ends the step. */
  async run(ctx: StepContext): Promise<void> {
    for (const strategy of this.ordered) await this.call(strategy, ctx, 0);
  }

  private call(strategy: Strategy, ctx: StepContext, index: number): Promise<void> {
    const middleware = this.middleware[index];
    if (!middleware) {
      checkNeeds(strategy, ctx);
      return strategy.run(ctx);
    }
    return middleware({ strategy, ctx }, () => this.call(strategy, ctx, index + 1));
  }
}

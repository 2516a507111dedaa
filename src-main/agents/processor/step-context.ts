/** A value a strategy needed that no earlier strategy provided. */
export class MissingDependencyError extends Error {
  constructor(
    readonly strategy: string,
    readonly key: string,
  ) {
    super(`strategy ${strategy} needs '${key}', which nothing provided`);
  }
}

/**
 * The values one step's strategies pass along: each reads what it declared it needs and writes what it
 * declared it provides.
 */
export class StepContext {
  private readonly values = new Map<string, unknown>();

  constructor(initial: Record<string, unknown> = {}) {
    for (const [key, value] of Object.entries(initial)) this.values.set(key, value);
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  get<T>(key: string): T {
    if (!this.values.has(key)) throw new MissingDependencyError('(caller)', key);
    return this.values.get(key) as T;
  }

  /** Like get, but undefined when absent (for optional inputs). */
  maybe<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  set(key: string, value: unknown): void {
    this.values.set(key, value);
  }

}

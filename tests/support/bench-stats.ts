/**
 * What a bench figure reports (tests/bench/results.json is a list of these) and small statistics
 * helpers. Figures without a goal are context for the ones with a goal (e.g. the two timings a ratio is
 * made of): their goal and meets are null.
 */
export interface Figure {
  figure: string;
  value: number;
  unit: string;
  goal: string | null;
  meets: boolean | null;
}

/** A figure with a goal: `value op limit`. */
export function goal(figure: string, value: number, unit: string, op: '<=' | '>=', limit: number): Figure {
  const shownUnit = unit === 'ratio' ? '' : ` ${unit}`;
  return {
    figure,
    value: round(value),
    unit,
    goal: `${op === '<=' ? '≤' : '≥'} ${limit}${shownUnit}`,
    meets: op === '<=' ? value <= limit : value >= limit,
  };
}

/** A figure given for context, without a goal of its own. */
export function info(figure: string, value: number, unit: string): Figure {
  return { figure, value: round(value), unit, goal: null, meets: null };
}

export function round(value: number): number {
  const digits = Math.abs(value) >= 100 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  return Number(value.toFixed(digits));
}

/** The p-th percentile (0..100) by the nearest-rank method. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

/** The line a bench child prints for the runner (tests/bench/run.ts) to collect. */
export const RESULT_PREFIX = 'BENCH_RESULT ';

export function emit(figures: Figure[]): void {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(figures)}\n`);
}

/** Progress for the person watching, on stderr (stdout carries the result). */
export function note(message: string): void {
  process.stderr.write(`  ${message}\n`);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function until(what: string, condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(1);
  }
}

/**
 * Runs a bench entry: exits with the code it returns (0 when none), or with 1 and the error's stack on
 * stderr when it throws.
 */
export function runBench(main: () => Promise<number | void>): void {
  main().then(
    (code) => process.exit(code ?? 0),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}

/** One record on a memory: a key/value object (a trajectory step, a Q&A pair, a request). */
export class MemoryItem {
  private readonly values: Record<string, unknown>;

  constructor(
    values: Record<string, unknown> = {},
    readonly step: number | null = null,
    /** The session a record was carried over from (a Q&A pair of an earlier session); null: its own. */
    readonly carriedFrom: string | null = null,
  ) {
    this.values = { ...values };
  }

  get(key: string): unknown {
    return this.values[key];
  }

  set(key: string, value: unknown): void {
    this.values[key] = value;
  }

  /** The item with only `keys` (in that order), e.g. the trajectory keys a prompt keeps. */
  pick(keys: readonly string[]): Record<string, unknown> {
    const picked: Record<string, unknown> = {};
    for (const key of keys) if (this.values[key] !== undefined) picked[key] = this.values[key];
    return picked;
  }

  toJSON(): Record<string, unknown> {
    return { ...this.values };
  }
}

/** An ordered list of items. */
export class Memory {
  private items: MemoryItem[] = [];

  constructor(readonly name: string) {}

  add(item: MemoryItem): void {
    this.items.push(item);
  }

  /** Removes the items recorded for one step (e.g. a step that was undone). */
  deleteByStep(step: number): number {
    return this.deleteWhere((item) => item.step === step);
  }

  deleteWhere(matches: (item: MemoryItem) => boolean): number {
    const before = this.items.length;
    this.items = this.items.filter((item) => !matches(item));
    return before - this.items.length;
  }

  clear(): void {
    this.items = [];
  }

  lastK(k: number): MemoryItem[] {
    return k <= 0 ? [] : this.items.slice(-k);
  }

  all(): readonly MemoryItem[] {
    return this.items;
  }

  get length(): number {
    return this.items.length;
  }

  isEmpty(): boolean {
    return this.items.length === 0;
  }

  toJSON(): Record<string, unknown>[] {
    return this.items.map((item) => item.toJSON());
  }
}

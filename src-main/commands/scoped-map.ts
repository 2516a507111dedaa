/**
 * A map whose changes can be taken back to a mark, for the never-run rule's subshells (whole-tree.ts):
 * what `( … )` sets is undone at its `)`. Each change records what it replaced, so marking costs
 * nothing and undoing costs only the changes made since: no copy per subshell, however many.
 */
export class ScopedMap<V> {
  private readonly values: Map<string, V>;
  private readonly undo: Array<readonly [string, V | undefined]> = [];

  constructor(entries?: Iterable<readonly [string, V]>) {
    this.values = new Map(entries);
  }

  get(name: string): V | undefined {
    return this.values.get(name);
  }

  set(name: string, value: V): void {
    this.undo.push([name, this.values.get(name)]);
    this.values.set(name, value);
  }

  delete(name: string): void {
    if (!this.values.has(name)) return;
    this.undo.push([name, this.values.get(name)]);
    this.values.delete(name);
  }

  /** A copy whose changes are its own. */
  copy(): ScopedMap<V> {
    return new ScopedMap(this.values);
  }

  /** A mark to take the map back to. */
  mark(): number {
    return this.undo.length;
  }

  /** Takes back every change made since `mark`. */
  rollback(mark: number): void {
    while (this.undo.length > mark) {
      const [name, value] = this.undo.pop() as readonly [string, V | undefined];
      if (value === undefined) this.values.delete(name);
      else this.values.set(name, value);
    }
  }
}

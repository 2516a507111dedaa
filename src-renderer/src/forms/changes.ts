/** One changed value in a form's data, at a JSONForms-style dotted path ("address.street", "tags"). */
export interface ValueChange {
  path: string;
  value: unknown;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The leaf changes from `before` to `after`: objects are walked key by key, anything else (text,
 * numbers, lists) is one value. A removed field is a change to `null` (JSON has no undefined).
 */
export function valueChanges(before: unknown, after: unknown, path = ''): ValueChange[] {
  // A new nested object (a group filled for the first time) is its fields' changes.
  if (isPlainObject(after) && (before === undefined || before === null)) return valueChanges({}, after, path);
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    const changes: ValueChange[] = [];
    for (const key of keys) {
      changes.push(...valueChanges(before[key], after[key], path ? `${path}.${key}` : key));
    }
    return changes;
  }
  if (sameJson(before, after)) return [];
  return [{ path, value: after === undefined ? null : after }];
}

function valueAt(data: unknown, path: string): unknown {
  let value = data;
  for (const key of path.split('.')) {
    if (!isPlainObject(value)) return undefined;
    value = value[key];
  }
  return value;
}

/** A copy of `data` with `value` at the dotted `path` (objects on the way are copied, or made). */
function withValueAt(data: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [key, ...rest] = path.split('.');
  if (key === undefined || key === '') return data;
  if (rest.length === 0) return { ...data, [key]: value };
  const inner = data[key];
  return { ...data, [key]: withValueAt(isPlainObject(inner) ? inner : {}, rest.join('.'), value) };
}

/**
 * The user's edits of an agent form that the host's data does not show yet: `pending` ones wait for
 * the debounce, `sent` ones went to the host but no data with them came back. Data from the host
 * (the agent's update, or the echo of an earlier edit) is shown with these on top, so a keystroke is
 * never lost to data that was on its way while it was typed.
 */
export class LocalEdits {
  private readonly pending = new Map<string, unknown>();
  private readonly sent = new Map<string, unknown>();

  edit(path: string, value: unknown): void {
    this.pending.set(path, value);
  }

  /** The pending edits, to send now; until the host's data shows them they count as sent. */
  takePending(): ValueChange[] {
    const changes = [...this.pending.entries()].map(([path, value]) => ({ path, value }));
    this.pending.clear();
    for (const change of changes) this.sent.set(change.path, change.value);
    return changes;
  }

  /** The host answered the edit (took it, or refused it): its data is the truth for that path again. */
  settled(change: ValueChange): void {
    if (this.sent.has(change.path) && sameJson(this.sent.get(change.path), change.value)) this.sent.delete(change.path);
  }

  /** The host's data with the edits it does not show yet on top; sent edits it shows are done with. */
  merge(incoming: Record<string, unknown>): Record<string, unknown> {
    let merged = incoming;
    for (const [path, value] of this.sent) {
      if (sameJson(valueAt(incoming, path), value)) this.sent.delete(path);
      else merged = withValueAt(merged, path, value);
    }
    for (const [path, value] of this.pending) merged = withValueAt(merged, path, value);
    return merged;
  }

  clear(): void {
    this.pending.clear();
    this.sent.clear();
  }
}

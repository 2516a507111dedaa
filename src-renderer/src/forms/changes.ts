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

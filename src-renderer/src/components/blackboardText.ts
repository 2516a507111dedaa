/**
 * A blackboard trajectory record as the drawer shows it: one "Key: value" line per field. A field
 * holding null (a HostAgent's step has no sub-task, a step without a result) has nothing to show, so
 * it has no line: never "Subtask: null".
 */
export function recordText(record: Record<string, unknown>): string {
  return Object.entries(record)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('\n');
}

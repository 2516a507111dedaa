import type { JsonSchema } from './schema-validator';

export interface FieldError {
  /** Dotted path into the settings, e.g. "limits.maxStepsPerRound". */
  path: string;
  message: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a dotted path names a field of the schema (through properties, items and nullable anyOf/oneOf). */
export function schemaHasPath(schema: JsonSchema, path: string): boolean {
  let nodes: unknown[] = [schema];
  for (const segment of path.split('.')) {
    const next: unknown[] = [];
    const visit = (node: unknown, depth: number): void => {
      if (!isObject(node) || depth > 8) return;
      if (isObject(node.properties) && Object.hasOwn(node.properties, segment)) next.push(node.properties[segment]);
      if (/^\d+$/.test(segment) && node.items !== undefined) next.push(node.items);
      for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
        const branches = node[key];
        if (Array.isArray(branches)) for (const branch of branches) visit(branch, depth + 1);
      }
    };
    for (const node of nodes) visit(node, 0);
    if (next.length === 0) return false;
    nodes = next;
  }
  return true;
}

/**
 * The field a host refusal names. The host answers an invalid `settings.set` with a bad_message reply
 * whose text names the field, e.g. "invalid command: values.limits.maxStepsPerRound: Too big: expected
 * number to be <=1000" or "invalid settings: limits.maxStepsPerRound: …". Every `a.b.c: ` in the text
 * is a candidate; the first that is a field of the schema wins, and what follows it is the message.
 */
export function fieldErrorFromMessage(message: string, schema: JsonSchema): FieldError | null {
  const candidate = /([A-Za-z_$][\w$-]*(?:\.[\w$-]+)*):\s+/g;
  for (let match = candidate.exec(message); match; match = candidate.exec(message)) {
    const raw = match[1] ?? '';
    const path = raw.startsWith('values.') ? raw.slice('values.'.length) : raw;
    if (schemaHasPath(schema, path)) {
      return { path, message: message.slice(match.index + match[0].length).trim() || 'is not valid' };
    }
  }
  return null;
}

/** The error in the shape JSONForms expects for `additionalErrors` (Ajv's ErrorObject). */
export function asFormError(error: FieldError): { instancePath: string; message: string; schemaPath: string; keyword: string; params: Record<string, unknown> } {
  return {
    instancePath: `/${error.path.split('.').join('/')}`,
    message: error.message,
    schemaPath: '',
    keyword: 'host',
    params: {},
  };
}

import type { JsonSchema, SchemaError } from './schema-validator';

export interface FieldError {
  /** Dotted path into the settings, e.g. "limits.maxStepsPerRound". */
  path: string;
  message: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schemas one step down a dotted path from `nodes` (through properties, items and anyOf/oneOf/allOf branches). */
function stepInto(nodes: readonly unknown[], segment: string): unknown[] {
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
  return next;
}

/** Whether a dotted path names a field of the schema (through properties, items and nullable anyOf/oneOf). */
export function schemaHasPath(schema: JsonSchema, path: string): boolean {
  let nodes: unknown[] = [schema];
  for (const segment of path.split('.')) {
    nodes = stepInto(nodes, segment);
    if (nodes.length === 0) return false;
  }
  return true;
}

/**
 * A field as the dialog labels it, for messages: the titles along its path (its tab, its group, its
 * own label), e.g. "Limits › Max steps per round" for `limits.maxStepsPerRound`, and "item 2" for a
 * list's second entry. A part without a title keeps its name; a path the schema does not have is
 * returned as it is.
 */
export function fieldName(schema: JsonSchema, path: string): string {
  const names: string[] = [];
  let nodes: unknown[] = [schema];
  for (const segment of path.split('.')) {
    const inList = /^\d+$/.test(segment) && nodes.some((node) => isObject(node) && node.items !== undefined);
    nodes = stepInto(nodes, segment);
    if (nodes.length === 0) return path;
    const title = nodes.map((node) => (isObject(node) && typeof node.title === 'string' ? node.title : null)).find((found) => found);
    names.push(inList ? `item ${Number(segment) + 1}` : (title ?? segment));
  }
  return names.join(' › ');
}

/** The field of a form error (Ajv's shape): its instance path, and the missing property's name for `required`. */
function errorPath(error: SchemaError): string {
  const parts = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'required') parts.push(String(error.params.missingProperty));
  return parts.join('.');
}

/**
 * The first of the form's own errors, naming the field as the dialog labels it: "Limits › Max steps
 * per round: must be at most 1000". Combinator summaries are skipped for the error they wrap.
 */
export function describeErrors(errors: readonly SchemaError[], schema: JsonSchema): string {
  const first = errors.find((error) => !['anyOf', 'oneOf', 'allOf'].includes(error.keyword));
  if (!first) return '';
  const path = errorPath(first);
  return `${path ? fieldName(schema, path) : 'Settings'}: ${first.message}`;
}

/** A host refusal of one field, naming it as the dialog labels it. */
export function refusalText(error: FieldError, schema: JsonSchema): string {
  return `${fieldName(schema, error.path)}: ${error.message}`;
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

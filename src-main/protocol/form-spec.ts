import { z } from 'zod';
import { MAX_FORM_SPEC_BYTES, type FormView } from './views';

/**
 * Form specs are written by a model, so they are untrusted: before JSONForms sees one it must be a
 * JSON Schema object form of bounded size, whose UI schema uses only element types we render (no raw
 * HTML, nothing executable), and whose `$ref`s stay inside the spec (nothing is fetched). The host
 * checks each spec with this when an agent opens it, and the renderer again before showing it.
 */

export type JsonSchema = Record<string, unknown>;

/** UI schema element types Deskhand renders: JSONForms' own layouts and controls, plus Button and Markdown. */
export const KNOWN_ELEMENT_TYPES = [
  'VerticalLayout',
  'HorizontalLayout',
  'Group',
  'Categorization',
  'Category',
  'Control',
  'Label',
  'Button',
  'Markdown',
] as const;

const LAYOUT_TYPES = new Set<string>(['VerticalLayout', 'HorizontalLayout', 'Group', 'Categorization', 'Category']);
const MAX_NESTING = 24;
const MAX_ELEMENTS = 400;

export interface UiElement {
  type: string;
  [key: string]: unknown;
}

const Rule = z
  .object({
    effect: z.enum(['HIDE', 'SHOW', 'ENABLE', 'DISABLE']),
    condition: z.record(z.string(), z.unknown()),
  })
  .loose();

const common = { rule: Rule.optional(), options: z.record(z.string(), z.unknown()).optional() };
const Scope = z.string().regex(/^#(\/[^#]*)?$/, 'a Control scope is a JSON pointer inside the schema, like #/properties/name');
const LabelText = z.string().max(500);

const ElementShapes: Record<string, z.ZodType> = {
  Control: z
    .object({
      type: z.literal('Control'),
      scope: Scope,
      label: z.union([LabelText, z.boolean(), z.object({ text: LabelText, show: z.boolean().optional() })]).optional(),
      ...common,
    })
    .loose(),
  Label: z.object({ type: z.literal('Label'), text: z.string().max(5_000), ...common }).loose(),
  Button: z
    .object({
      type: z.literal('Button'),
      label: z.string().trim().min(1, 'a Button needs a label').max(200),
      props: z.object({ action: z.string().trim().min(1, 'a Button needs props.action').max(200) }).loose(),
      ...common,
    })
    .loose(),
  Markdown: z.object({ type: z.literal('Markdown'), text: z.string().max(50_000), ...common }).loose(),
};
const Layout = z
  .object({ type: z.string(), label: LabelText.optional(), elements: z.array(z.unknown()).max(200), ...common })
  .loose();

export type FormSpecCheck =
  | { ok: true; schema: JsonSchema; uischema: UiElement | undefined; data: Record<string, unknown> }
  | { ok: false; problem: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field whose value is a secret: shown as a password box, never saved with the form. */
export function isSecretField(field: unknown): boolean {
  return isObject(field) && (field.format === 'password' || field.writeOnly === true);
}

/** Resolves a local `$ref` ("#", "#/definitions/x", "#/$defs/x"); anything else is not followed. */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined; // A broken %-escape points nowhere.
  }
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function describeIssue(error: z.ZodError, where: string): string {
  const issue = error.issues[0];
  const path = [where, ...(issue?.path ?? []).map(String)].join('.');
  return `${path}: ${issue?.message ?? 'not valid'}`;
}

/** Walks every node of a JSON value (depth-first), with its path; stops early when `visit` returns a string (the problem). */
function findProblem(value: unknown, path: string, depth: number, visit: (node: Record<string, unknown>, path: string) => string | null): string | null {
  if (depth > 64) return `${path}: nested too deeply`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const problem = findProblem(value[i], `${path}.${i}`, depth + 1, visit);
      if (problem) return problem;
    }
    return null;
  }
  if (!isObject(value)) return null;
  const own = visit(value, path);
  if (own) return own;
  for (const [key, child] of Object.entries(value)) {
    const problem = findProblem(child, `${path}.${key}`, depth + 1, visit);
    if (problem) return problem;
  }
  return null;
}

/**
 * `$ref`s must point inside the spec: a remote one would make the renderer fetch what a model chose.
 * A UI schema's rule conditions are checked against themselves as the root, so they may have none.
 */
function refProblem(root: unknown, where: string, inSchema: boolean): string | null {
  return findProblem(root, where, 0, (node, path) => {
    for (const keyword of ['$ref', '$dynamicRef', '$recursiveRef']) {
      const ref = node[keyword];
      if (ref === undefined) continue;
      if (typeof ref !== 'string' || !ref.startsWith('#')) {
        return `${path}: ${keyword} ${JSON.stringify(ref)} points outside the form; only references inside it (#/…) are allowed`;
      }
      if (!inSchema) return `${path}: ${keyword} is not allowed in a UI schema`;
      if (keyword === '$ref' && resolveLocalRef(root, ref) === undefined) return `${path}: $ref ${ref} is not in the schema`;
    }
    return patternProblem(node, path);
  });
}

/** How many schema nodes a form's `$ref`s may expand to, counted as the validator and JSONForms follow them. */
const MAX_EXPANDED_NODES = 20_000;

/** The quantifier starting at `pattern[at]` (`*`, `+`, `{2}`, `{2,}`, `{1,5}`) repeats what it follows; `?` or `{1}` does not. */
function repeats(pattern: string, at: number): boolean {
  const char = pattern[at];
  if (char === '*' || char === '+') return true;
  if (char !== '{') return false;
  const bounds = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
  if (!bounds) return false;
  return Number(bounds[1]) > 1 || (bounds[2] !== undefined && (bounds[3] === '' || Number(bounds[3]) > 1));
}

/**
 * Whether a regular expression has a repeated group that itself repeats something (`(a+)+`,
 * `(\w+\s?){2,}`): JavaScript's engine backtracks through every way of splitting the text between
 * the two, so one keystroke could freeze the window. A heuristic (safe-regex's "star height"): it
 * refuses some harmless patterns, such as `(-[a-z]+)*`, and catches the usual catastrophic ones.
 */
export function backtracksCatastrophically(pattern: string): boolean {
  const groups: boolean[] = [];
  let repeatedInside = false;
  for (let at = 0; at < pattern.length; at += 1) {
    const char = pattern[at];
    if (char === '\\') {
      at += 1;
      if (repeats(pattern, at + 1)) repeatedInside = true;
    } else if (char === '[') {
      for (at += 1; at < pattern.length && pattern[at] !== ']'; at += 1) if (pattern[at] === '\\') at += 1;
      if (repeats(pattern, at + 1)) repeatedInside = true;
    } else if (char === '(') {
      groups.push(repeatedInside);
      repeatedInside = false;
    } else if (char === ')') {
      const inner = repeatedInside;
      repeatedInside = groups.pop() ?? false;
      if (repeats(pattern, at + 1)) {
        if (inner) return true;
        repeatedInside = true;
      } else if (inner) {
        repeatedInside = true;
      }
    } else if (repeats(pattern, at + 1) && char !== undefined && !'*+?}'.includes(char)) {
      repeatedInside = true;
    }
  }
  return false;
}

function patternProblem(node: Record<string, unknown>, path: string): string | null {
  const patterns = typeof node.pattern === 'string' ? [node.pattern] : [];
  if (isObject(node.patternProperties)) patterns.push(...Object.keys(node.patternProperties));
  const risky = patterns.find(backtracksCatastrophically);
  return risky === undefined
    ? null
    : `${path}: the pattern ${JSON.stringify(risky.slice(0, 80))} repeats a group that repeats inside, and may take too long to check (use a simpler pattern)`;
}

/**
 * Counts the schema's nodes with each `$ref` expanded where it stands, as the validator and JSONForms
 * follow them: a `$ref` loop never ends, and refs that each use the next one twice double per level.
 * An explicit stack, so that a deep expansion cannot exhaust the call stack either.
 */
function expansionProblem(root: Record<string, unknown>): string | null {
  const stack: unknown[] = [root];
  let count = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (!isObject(node)) continue;
    count += 1;
    if (count > MAX_EXPANDED_NODES) return `schema: its references loop or expand to more than ${MAX_EXPANDED_NODES} parts; a form schema cannot be recursive`;
    if (typeof node.$ref === 'string') stack.push(resolveLocalRef(root, node.$ref));
    stack.push(...Object.values(node));
  }
  return null;
}

const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;
/** Keywords whose value is one schema, a list of them, or a map of names to them. */
const ONE_SCHEMA = ['additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'additionalItems'] as const;
const SCHEMA_LISTS = ['oneOf', 'anyOf', 'allOf'] as const;
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs'] as const;

/**
 * The schema's structure, as JSONForms reads it while rendering: a `type` it does not know, a field
 * whose schema is no object, or an `enum` or `required` that is no list makes it throw, and the form
 * could not be shown. Keywords JSONForms does not read structurally are left to the validator.
 */
function schemaShapeProblem(node: unknown, path: string, depth: number): string | null {
  if (depth > 64) return `${path}: nested too deeply`;
  // `true` and `false` are schemas too (anything, nothing); a field's must be an object (checked below).
  if (typeof node === 'boolean' && depth > 0) return null;
  if (!isObject(node)) return `${path}: a schema must be an object`;
  const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  const unknownType = types.find((type) => !(JSON_TYPES as readonly unknown[]).includes(type));
  if (unknownType !== undefined) {
    return `${path}.type: ${JSON.stringify(unknownType)?.slice(0, 40)} is not a JSON Schema type (${JSON_TYPES.join(', ')})`;
  }
  if (node.enum !== undefined && (!Array.isArray(node.enum) || node.enum.length === 0)) return `${path}.enum: must be a list of at least one value`;
  if (node.required !== undefined && !(Array.isArray(node.required) && node.required.every((name) => typeof name === 'string'))) {
    return `${path}.required: must be a list of field names`;
  }
  const children: Array<[unknown, string]> = [];
  for (const keyword of ONE_SCHEMA) if (node[keyword] !== undefined) children.push([node[keyword], `${path}.${keyword}`]);
  if (Array.isArray(node.items)) node.items.forEach((item, i) => children.push([item, `${path}.items.${i}`]));
  else if (node.items !== undefined) children.push([node.items, `${path}.items`]);
  for (const keyword of SCHEMA_LISTS) {
    const list = node[keyword];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0) return `${path}.${keyword}: must be a list of schemas`;
    list.forEach((item, i) => children.push([item, `${path}.${keyword}.${i}`]));
  }
  for (const keyword of SCHEMA_MAPS) {
    const map = node[keyword];
    if (map === undefined) continue;
    if (!isObject(map)) return `${path}.${keyword}: must be an object of schemas`;
    // A field of a form is shown from its schema: that schema must be an object.
    for (const [name, child] of Object.entries(map)) {
      if (keyword === 'properties' && !isObject(child)) return `${path}.properties.${name}: a field's schema must be an object`;
      children.push([child, `${path}.${keyword}.${name}`]);
    }
  }
  for (const [child, childPath] of children) {
    const problem = schemaShapeProblem(child, childPath, depth + 1);
    if (problem) return problem;
  }
  return null;
}

function checkElement(element: unknown, path: string, depth: number, counter: { count: number }): string | null {
  if (depth > MAX_NESTING) return `${path}: layouts are nested too deeply`;
  counter.count += 1;
  if (counter.count > MAX_ELEMENTS) return `uischema: more than ${MAX_ELEMENTS} elements`;
  if (!isObject(element) || typeof element.type !== 'string') return `${path}: every element needs a type`;
  const { type } = element;
  if (!(KNOWN_ELEMENT_TYPES as readonly string[]).includes(type)) {
    return `${path}: element type ${JSON.stringify(type.slice(0, 40))} is not one Deskhand shows (${KNOWN_ELEMENT_TYPES.join(', ')})`;
  }
  if (LAYOUT_TYPES.has(type)) {
    const parsed = Layout.safeParse(element);
    if (!parsed.success) return describeIssue(parsed.error, path);
    for (let i = 0; i < parsed.data.elements.length; i += 1) {
      const problem = checkElement(parsed.data.elements[i], `${path}.elements.${i}`, depth + 1, counter);
      if (problem) return problem;
    }
    return null;
  }
  const shape = ElementShapes[type];
  const parsed = shape?.safeParse(element);
  return parsed && !parsed.success ? describeIssue(parsed.error, path) : null;
}

function specBytes(form: Pick<FormView, 'schema' | 'uischema' | 'data'>): number {
  return new TextEncoder().encode(JSON.stringify({ schema: form.schema, uischema: form.uischema, data: form.data })).length;
}

/** Checks a model-written form spec; `problem` says in words what is wrong, for the place of the form. */
export function checkFormSpec(form: Pick<FormView, 'schema' | 'uischema' | 'data'>): FormSpecCheck {
  const bytes = specBytes(form);
  if (bytes > MAX_FORM_SPEC_BYTES) {
    return { ok: false, problem: `The form is too large (${Math.ceil(bytes / 1024)} KB; at most ${MAX_FORM_SPEC_BYTES / 1024} KB).` };
  }
  const { schema, uischema, data } = form;
  if (schema.type !== 'object') return { ok: false, problem: 'schema: a form schema must be an object schema ("type": "object").' };
  if (schema.properties !== undefined && !isObject(schema.properties)) {
    return { ok: false, problem: 'schema.properties: must be an object of field schemas.' };
  }
  const schemaRefs = refProblem(schema, 'schema', true) ?? expansionProblem(schema) ?? schemaShapeProblem(schema, 'schema', 0);
  if (schemaRefs) return { ok: false, problem: `${schemaRefs}.` };
  if (uischema !== null) {
    const elementProblem = checkElement(uischema, 'uischema', 0, { count: 0 });
    if (elementProblem) return { ok: false, problem: `${elementProblem}.` };
    const uiRefs = refProblem(uischema, 'uischema', false);
    if (uiRefs) return { ok: false, problem: `${uiRefs}.` };
  }
  return { ok: true, schema, uischema: (uischema ?? undefined) as UiElement | undefined, data };
}

/**
 * A small JSON Schema (draft 7 / 2019 subset) validator that interprets schemas instead of compiling
 * them. Ajv, which JSONForms uses by default, compiles every schema to code with `new Function`, and the
 * renderer's Content-Security-Policy (`script-src 'self'`, no 'unsafe-eval', in Electron and in browser
 * mode) forbids exactly that: ajv.compile throws an EvalError there. Model-written form specs are
 * untrusted, too, which is one more reason not to turn them into code.
 *
 * Errors have Ajv's shape (keyword, instancePath, params, message, parentSchema) so JSONForms places
 * them at the right controls.
 */

import { resolveLocalRef, type JsonSchema } from '../../../src-main/protocol/form-spec';

export { resolveLocalRef, type JsonSchema };

export interface SchemaError {
  keyword: string;
  /** JSON pointer to the value, e.g. `/limits/maxStepsPerRound`; '' for the root. */
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message: string;
  schema?: unknown;
  parentSchema?: JsonSchema;
  data?: unknown;
}

/** Deeper than this is a schema trying to exhaust the stack (or a $ref cycle over the same data). */
const MAX_DEPTH = 64;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && deepEqual(left[key], right[key]));
}

const FORMATS: Record<string, (value: string) => boolean> = {
  email: (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value),
  uri: (value) => {
    try {
      return new URL(value).protocol.length > 1;
    } catch {
      return false;
    }
  },
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)),
  time: (value) => /^\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/.test(value),
  'date-time': (value) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(value) && !Number.isNaN(Date.parse(value)),
  uuid: (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
  regex: (value) => {
    try {
      new RegExp(value, 'u');
      return true;
    } catch {
      return false;
    }
  },
};
FORMATS.url = FORMATS.uri as (value: string) => boolean;

const FORMAT_WORDS: Record<string, string> = {
  email: 'an email address',
  uri: 'a URL',
  url: 'a URL',
  date: 'a date (YYYY-MM-DD)',
  time: 'a time (HH:MM)',
  'date-time': 'a date and time',
  uuid: 'a UUID',
  regex: 'a valid regular expression',
};

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'empty',
};

const patternCache = new Map<string, RegExp | null>();

function compiledPattern(pattern: string): RegExp | null {
  if (!patternCache.has(pattern)) {
    let compiled: RegExp | null = null;
    try {
      compiled = new RegExp(pattern, 'u');
    } catch {
      compiled = null; // An unreadable pattern constrains nothing rather than breaking the form.
    }
    if (patternCache.size > 500) patternCache.clear();
    patternCache.set(pattern, compiled);
  }
  return patternCache.get(pattern) ?? null;
}

class Validation {
  readonly errors: SchemaError[] = [];

  constructor(private readonly root: JsonSchema) {}

  check(schema: unknown, data: unknown, path: string, schemaPath: string, depth: number): void {
    if (schema === true || schema === undefined) return;
    if (schema === false) {
      this.fail('false schema', path, schemaPath, {}, 'is not allowed', {}, data);
      return;
    }
    if (!isObject(schema)) return;
    if (depth > MAX_DEPTH) {
      this.fail('depth', path, schemaPath, {}, 'is nested too deeply to check', schema, data);
      return;
    }
    const before = this.errors.length;
    this.checkKeywords(schema, data, path, schemaPath, depth);
    // `errorMessage` (as ajv-errors spells it) replaces what we would say.
    if (typeof schema.errorMessage === 'string' && this.errors.length > before) {
      for (let i = before; i < this.errors.length; i += 1) {
        const error = this.errors[i] as SchemaError;
        if (error.keyword !== 'required') error.message = schema.errorMessage;
      }
    }
  }

  private fail(
    keyword: string,
    instancePath: string,
    schemaPath: string,
    params: Record<string, unknown>,
    message: string,
    parentSchema: JsonSchema,
    data: unknown,
  ): void {
    this.errors.push({ keyword, instancePath, schemaPath: `${schemaPath}/${keyword}`, params, message, parentSchema, data, schema: parentSchema[keyword] });
  }

  private checkKeywords(schema: JsonSchema, data: unknown, path: string, schemaPath: string, depth: number): void {
    if (typeof schema.$ref === 'string') {
      const target = resolveLocalRef(this.root, schema.$ref);
      if (target === undefined) {
        this.fail('$ref', path, schemaPath, { ref: schema.$ref }, `refers to ${schema.$ref}, which is not in the schema`, schema, data);
      } else {
        this.check(target, data, path, schema.$ref, depth + 1);
      }
    }

    const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.map(String) : null;
    if (types && !types.some((type) => hasType(data, type))) {
      const words = types.map((type) => TYPE_WORDS[type] ?? type).join(' or ');
      this.fail('type', path, schemaPath, { type: types.join(',') }, `must be ${words}`, schema, data);
      return; // Nothing else can be said sensibly about a value of the wrong type.
    }

    if (Array.isArray(schema.enum) && !schema.enum.some((option) => deepEqual(option, data))) {
      this.fail('enum', path, schemaPath, { allowedValues: schema.enum }, `must be one of: ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`, schema, data);
    }
    if ('const' in schema && !deepEqual(schema.const, data)) {
      this.fail('const', path, schemaPath, { allowedValue: schema.const }, `must be ${JSON.stringify(schema.const)}`, schema, data);
    }

    if (typeof data === 'string') this.checkString(schema, data, path, schemaPath);
    if (typeof data === 'number') this.checkNumber(schema, data, path, schemaPath);
    if (Array.isArray(data)) this.checkArray(schema, data, path, schemaPath, depth);
    if (isObject(data)) this.checkObject(schema, data, path, schemaPath, depth);

    if (Array.isArray(schema.allOf)) {
      schema.allOf.forEach((sub, i) => this.check(sub, data, path, `${schemaPath}/allOf/${i}`, depth + 1));
    }
    if (Array.isArray(schema.anyOf)) this.checkCombinator('anyOf', schema, schema.anyOf, data, path, schemaPath, depth);
    if (Array.isArray(schema.oneOf)) this.checkCombinator('oneOf', schema, schema.oneOf, data, path, schemaPath, depth);
    if (schema.not !== undefined && this.passes(schema.not, data, path, depth)) {
      this.fail('not', path, schemaPath, {}, 'must not match the excluded schema', schema, data);
    }
    if (schema.if !== undefined) {
      const branch = this.passes(schema.if, data, path, depth) ? 'then' : 'else';
      if (schema[branch] !== undefined) this.check(schema[branch], data, path, `${schemaPath}/${branch}`, depth + 1);
    }
  }

  private passes(schema: unknown, data: unknown, path: string, depth: number): boolean {
    const probe = new Validation(this.root);
    probe.check(schema, data, path, '', depth + 1);
    return probe.errors.length === 0;
  }

  /** Reports the errors of the branch that came closest, so a nullable field shows its real problem. */
  private checkCombinator(
    keyword: 'anyOf' | 'oneOf',
    schema: JsonSchema,
    branches: unknown[],
    data: unknown,
    path: string,
    schemaPath: string,
    depth: number,
  ): void {
    const results = branches.map((branch, i) => {
      const probe = new Validation(this.root);
      probe.check(branch, data, path, `${schemaPath}/${keyword}/${i}`, depth + 1);
      return probe.errors;
    });
    const passing = results.filter((errors) => errors.length === 0).length;
    if (keyword === 'anyOf' ? passing > 0 : passing === 1) return;
    if (keyword === 'oneOf' && passing > 1) {
      this.fail('oneOf', path, schemaPath, { passingSchemas: passing }, 'must match exactly one option', schema, data);
      return;
    }
    // A branch whose type fits is closer than one that fails on type alone.
    const score = (errors: SchemaError[]) => errors.length + (errors.some((e) => e.keyword === 'type' && e.instancePath === path) ? 1000 : 0);
    const closest = results.reduce((best, errors) => (score(errors) < score(best) ? errors : best), results[0] ?? []);
    this.errors.push(...closest);
    this.fail(keyword, path, schemaPath, {}, `must match ${keyword === 'anyOf' ? 'one of the' : 'exactly one of the'} options`, schema, data);
  }

  private checkString(schema: JsonSchema, data: string, path: string, schemaPath: string): void {
    const length = [...data].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength) {
      const message = schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters`;
      this.fail('minLength', path, schemaPath, { limit: schema.minLength }, message, schema, data);
    }
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) {
      this.fail('maxLength', path, schemaPath, { limit: schema.maxLength }, `must be at most ${schema.maxLength} characters`, schema, data);
    }
    if (typeof schema.pattern === 'string') {
      const pattern = compiledPattern(schema.pattern);
      if (pattern && !pattern.test(data)) {
        this.fail('pattern', path, schemaPath, { pattern: schema.pattern }, `must match the pattern ${schema.pattern}`, schema, data);
      }
    }
    if (typeof schema.format === 'string') {
      const test = FORMATS[schema.format];
      if (test && !test(data)) {
        this.fail('format', path, schemaPath, { format: schema.format }, `must be ${FORMAT_WORDS[schema.format] ?? schema.format}`, schema, data);
      }
    }
  }

  private checkNumber(schema: JsonSchema, data: number, path: string, schemaPath: string): void {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
    if (typeof minimum === 'number') {
      // Draft 4 spelled an exclusive bound as a boolean next to minimum.
      if (exclusiveMinimum === true ? data <= minimum : data < minimum) {
        this.fail('minimum', path, schemaPath, { limit: minimum }, `must be ${exclusiveMinimum === true ? 'more than' : 'at least'} ${minimum}`, schema, data);
      }
    }
    if (typeof maximum === 'number') {
      if (exclusiveMaximum === true ? data >= maximum : data > maximum) {
        this.fail('maximum', path, schemaPath, { limit: maximum }, `must be ${exclusiveMaximum === true ? 'less than' : 'at most'} ${maximum}`, schema, data);
      }
    }
    if (typeof exclusiveMinimum === 'number' && data <= exclusiveMinimum) {
      this.fail('exclusiveMinimum', path, schemaPath, { limit: exclusiveMinimum }, `must be more than ${exclusiveMinimum}`, schema, data);
    }
    if (typeof exclusiveMaximum === 'number' && data >= exclusiveMaximum) {
      this.fail('exclusiveMaximum', path, schemaPath, { limit: exclusiveMaximum }, `must be less than ${exclusiveMaximum}`, schema, data);
    }
    if (typeof multipleOf === 'number' && multipleOf > 0) {
      const quotient = data / multipleOf;
      if (Math.abs(quotient - Math.round(quotient)) > 1e-9) {
        this.fail('multipleOf', path, schemaPath, { multipleOf }, `must be a multiple of ${multipleOf}`, schema, data);
      }
    }
  }

  private checkArray(schema: JsonSchema, data: unknown[], path: string, schemaPath: string, depth: number): void {
    if (typeof schema.minItems === 'number' && data.length < schema.minItems) {
      this.fail('minItems', path, schemaPath, { limit: schema.minItems }, `must have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`, schema, data);
    }
    if (typeof schema.maxItems === 'number' && data.length > schema.maxItems) {
      this.fail('maxItems', path, schemaPath, { limit: schema.maxItems }, `must have at most ${schema.maxItems} items`, schema, data);
    }
    if (schema.uniqueItems === true) {
      const duplicate = data.findIndex((item, i) => data.slice(0, i).some((earlier) => deepEqual(earlier, item)));
      if (duplicate !== -1) this.fail('uniqueItems', path, schemaPath, { i: duplicate }, 'must not repeat an item', schema, data);
    }
    const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : null;
    const rest = tuple ? (Array.isArray(schema.items) ? schema.additionalItems : schema.items) : schema.items;
    data.forEach((item, i) => {
      const itemSchema = tuple && i < tuple.length ? tuple[i] : rest;
      if (itemSchema !== undefined) this.check(itemSchema, item, `${path}/${i}`, `${schemaPath}/items`, depth + 1);
    });
  }

  private checkObject(schema: JsonSchema, data: Record<string, unknown>, path: string, schemaPath: string, depth: number): void {
    if (Array.isArray(schema.required)) {
      for (const key of schema.required) {
        if (typeof key === 'string' && data[key] === undefined) {
          this.fail('required', path, schemaPath, { missingProperty: key }, 'is required', schema, data);
        }
      }
    }
    const keys = Object.keys(data);
    if (typeof schema.minProperties === 'number' && keys.length < schema.minProperties) {
      this.fail('minProperties', path, schemaPath, { limit: schema.minProperties }, `must have at least ${schema.minProperties} entries`, schema, data);
    }
    if (typeof schema.maxProperties === 'number' && keys.length > schema.maxProperties) {
      this.fail('maxProperties', path, schemaPath, { limit: schema.maxProperties }, `must have at most ${schema.maxProperties} entries`, schema, data);
    }
    const properties = isObject(schema.properties) ? schema.properties : {};
    const patterns = isObject(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
    for (const key of keys) {
      const value = data[key];
      if (value === undefined) continue;
      const childPath = `${path}/${escapePointer(key)}`;
      let matched = false;
      if (Object.hasOwn(properties, key)) {
        matched = true;
        this.check(properties[key], value, childPath, `${schemaPath}/properties/${escapePointer(key)}`, depth + 1);
      }
      for (const [pattern, sub] of patterns) {
        if (compiledPattern(pattern)?.test(key)) {
          matched = true;
          this.check(sub, value, childPath, `${schemaPath}/patternProperties`, depth + 1);
        }
      }
      if (!matched && schema.additionalProperties !== undefined) {
        if (schema.additionalProperties === false) {
          this.fail('additionalProperties', path, schemaPath, { additionalProperty: key }, `must not have the field ${key}`, schema, data);
        } else {
          this.check(schema.additionalProperties, value, childPath, `${schemaPath}/additionalProperties`, depth + 1);
        }
      }
    }
  }
}

/** Every problem `data` has against `schema` (empty: valid). Local `$ref`s are resolved against `root`. */
export function validateAgainstSchema(schema: unknown, data: unknown, root: unknown = schema): SchemaError[] {
  const validation = new Validation(isObject(root) ? root : {});
  validation.check(schema, data, '', '#', 0);
  return validation.errors;
}

import type { JsonFormsCore } from '@jsonforms/core';
import { validateAgainstSchema, type SchemaError } from './schema-validator';

export type FormsAjv = NonNullable<JsonFormsCore['ajv']>;

type ValidateFunction = ((data: unknown) => boolean) & { errors: SchemaError[] | null; schema: unknown };

/**
 * What JSONForms needs from Ajv (`compile` for the form's schema, `validate` for rule conditions),
 * backed by the interpreting validator in ./schema-validator: the renderer's CSP forbids the
 * `new Function` Ajv compiles with, so Ajv itself cannot validate here. `substitutes` maps a schema
 * the form shows to the one its data is checked against.
 */
export function createFormsAjv(substitutes?: ReadonlyMap<unknown, unknown>): FormsAjv {
  let lastErrors: SchemaError[] | null = null;
  const compile = (shown: unknown): ValidateFunction => {
    // A form may show a simplified schema while values are checked against the real one.
    const schema = substitutes?.get(shown) ?? shown;
    const validate = ((data: unknown) => {
      const errors = validateAgainstSchema(schema, data);
      validate.errors = errors.length > 0 ? errors : null;
      return errors.length === 0;
    }) as ValidateFunction;
    validate.errors = null;
    validate.schema = schema;
    return validate;
  };
  const adapter = {
    compile,
    validate(schema: unknown, data: unknown): boolean {
      const validate = compile(schema);
      const valid = validate(data);
      lastErrors = validate.errors;
      return valid;
    },
    get errors() {
      return lastErrors;
    },
    getSchema: () => undefined,
    addSchema() {
      return adapter;
    },
    addFormat() {
      return adapter;
    },
    addKeyword() {
      return adapter;
    },
    removeSchema() {
      return adapter;
    },
  };
  // Only the members above are used by JSONForms 3.8 (core reducer, rule conditions, combinators).
  return adapter as unknown as FormsAjv;
}

import { Generate, type JsonSchema7 } from '@jsonforms/core';
import { isSecretField, resolveLocalRef, type JsonSchema, type UiElement } from '../../../src-main/protocol/form-spec';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The field a Control's scope names, its `$ref`s followed (a few deep: a longer chain is no field of a real form). */
function fieldAt(schema: JsonSchema, scope: string): unknown {
  let field = resolveLocalRef(schema, scope);
  for (let hops = 0; hops < 8 && isObject(field) && typeof field.$ref === 'string'; hops++) field = resolveLocalRef(schema, field.$ref);
  return field;
}

function masked(element: UiElement, schema: JsonSchema): UiElement {
  if (Array.isArray(element.elements)) {
    return { ...element, elements: element.elements.map((child: unknown) => (isObject(child) && typeof child.type === 'string' ? masked(child as UiElement, schema) : child)) };
  }
  if (element.type !== 'Control' || typeof element.scope !== 'string' || !isSecretField(fieldAt(schema, element.scope))) return element;
  return { ...element, options: { ...(isObject(element.options) ? element.options : {}), format: 'password' } };
}

/**
 * JSONForms shows a password box only for a Control with `options.format: "password"`; a field the
 * schema marks secret (`format: "password"`, `writeOnly`) would be shown in clear text while typed.
 * Those Controls get the option (in the UI schema JSONForms would generate, when the form has none).
 */
export function maskSecretFields(schema: JsonSchema, uischema: UiElement | undefined): UiElement {
  const base = uischema ?? (Generate.uiSchema(schema as JsonSchema7) as unknown as UiElement);
  return masked(base, schema);
}

import type { UiElement } from '../../../src-main/protocol/form-spec';
import type { JsonSchema } from './schema-validator';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNullSchema(value: unknown): boolean {
  return isObject(value) && value.type === 'null' && Object.keys(value).every((key) => key === 'type' || key === 'description' || key === 'title');
}

/**
 * The settings schema as the form shows it: a nullable field (`anyOf: [X, {type: null}]`, or
 * `type: [x, 'null']`, as zod writes `.nullable()`) becomes plain X, so JSONForms shows X's fields
 * instead of a tab per alternative. Validation keeps using the original schema, where null is allowed.
 */
export function withoutNullAlternatives(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutNullAlternatives);
  if (!isObject(schema)) return schema;
  let node: Record<string, unknown> = schema;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (Array.isArray(branches) && branches.length === 2 && branches.some(isNullSchema)) {
      const { [keyword]: _dropped, ...rest } = node;
      const other = branches.find((branch) => !isNullSchema(branch));
      node = { ...(isObject(other) ? other : {}), ...rest };
    }
  }
  if (Array.isArray(node.type) && node.type.includes('null')) {
    const types = node.type.filter((type) => type !== 'null');
    node = { ...node, type: types.length === 1 ? types[0] : types };
  }
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) result[key] = withoutNullAlternatives(value);
  return result;
}

/** Without a UI schema from the host: one tab per top-level section (Models, Agent, Limits, …). */
export function settingsUiSchema(schema: JsonSchema): UiElement | undefined {
  const properties = isObject(schema.properties) ? schema.properties : null;
  if (!properties || Object.keys(properties).length < 2) return undefined;
  return {
    type: 'Categorization',
    elements: Object.entries(properties).map(([key, property]) => ({
      type: 'Category',
      label: isObject(property) && typeof property.title === 'string' ? property.title : key,
      elements: [{ type: 'Control', scope: `#/properties/${key}` }],
    })),
  };
}

/** The settings form's own element (no agent form may hold it): how the saved MCP servers stand. */
export const SERVER_STATUS_ELEMENT = 'ServerStatus';
const MCP_SERVERS_SCOPE = '#/properties/mcpServers';

/**
 * `uischema` with the MCP servers' status right after their field, in whichever layout or tab holds
 * it; null when no element shows that field (the dialog then shows the status below the form).
 */
export function withServerStatus(uischema: UiElement): UiElement | null {
  if (uischema.type === 'Control' && uischema.scope === MCP_SERVERS_SCOPE) {
    return { type: 'VerticalLayout', elements: [uischema, { type: SERVER_STATUS_ELEMENT }] };
  }
  if (!Array.isArray(uischema.elements)) return null;
  const elements: unknown[] = [...uischema.elements];
  for (let i = 0; i < elements.length; i += 1) {
    const element = elements[i];
    if (!isObject(element) || typeof element.type !== 'string') continue;
    const placed = withServerStatus(element as UiElement);
    if (placed) {
      elements[i] = placed;
      return { ...uischema, elements };
    }
  }
  return null;
}

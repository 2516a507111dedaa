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
      label: isObject(property) && typeof property.title === 'string' ? property.title : settingLabel(key),
      elements: [{ type: 'Control', scope: `#/properties/${key}` }],
    })),
  };
}

/** Words that are written in capitals, whatever the property name's case. */
const ACRONYMS: Record<string, string> = { api: 'API', http: 'HTTP', id: 'ID', json: 'JSON', llm: 'LLM', mcp: 'MCP', url: 'URL' };
/** Unit endings of property names, said as words in brackets ("timeoutMs": "Timeout (ms)"). */
const UNIT_ENDINGS: [RegExp, string][] = [
  [/ per m tok$/, ' per million tokens'],
  [/ ms$/, ' (ms)'],
  [/ mb$/, ' (MB)'],
  [/ chars$/, ' (characters)'],
];

/**
 * A setting's name in words, in the sentence case of the host's own titles ("Free disk space to keep
 * (MB)"): "timeoutMs" → "Timeout (ms)", "baseUrl" → "Base URL", "inputPricePerMTok" → "Input price per
 * million tokens". JSONForms' own fallback splits the name at capitals ("Timeout Ms", "Input Price Per M Tok").
 */
export function settingLabel(key: string): string {
  let text = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  for (const [ending, words] of UNIT_ENDINGS) text = text.replace(ending, words);
  text = text
    .split(' ')
    .map((word) => ACRONYMS[word] ?? word)
    .join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The schema with a title, in words, on every property that has none (for the form's labels and tabs). */
export function withSettingTitles(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withSettingTitles);
  if (!isObject(schema)) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isObject(value)) {
      result[key] = Object.fromEntries(
        Object.entries(value).map(([name, property]) => {
          const titled = withSettingTitles(property);
          return [name, isObject(titled) && typeof titled.title !== 'string' ? { ...titled, title: settingLabel(name) } : titled];
        }),
      );
    } else {
      result[key] = withSettingTitles(value);
    }
  }
  return result;
}

type JsonSchema = Record<string, unknown>;

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema of `key` under `node`: a property, an item of a list, or a property of one of its variants. */
function childSchema(node: JsonSchema, key: PropertyKey): JsonSchema | null {
  if (typeof key === 'number') return isObject(node.items) ? node.items : null;
  const properties = node.properties;
  if (isObject(properties) && isObject(properties[String(key)])) return properties[String(key)] as JsonSchema;
  for (const variant of [node.anyOf, node.oneOf].flatMap((list) => (Array.isArray(list) ? list : []))) {
    if (!isObject(variant)) continue;
    const found = childSchema(variant, key);
    if (found) return found;
  }
  return null;
}

/**
 * A setting's path in words, as Settings labels it: `limits.maxStepsPerRound` is "Limits › Max steps per
 * round", an MCP server's URL "MCP servers › 2 › URL". A part the schema does not know (a typo in the file)
 * stays as written.
 */
export function settingLabel(schema: JsonSchema, path: readonly PropertyKey[]): string {
  const words: string[] = [];
  let node: JsonSchema | null = schema;
  for (const key of path) {
    node = node ? childSchema(node, key) : null;
    const title = node?.title;
    words.push(typeof key === 'number' ? String(key + 1) : typeof title === 'string' ? title : String(key));
  }
  return words.join(' › ');
}

import type { Tool } from '@modelcontextprotocol/sdk/types.js';

interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  items?: PropertySchema;
  anyOf?: PropertySchema[];
  description?: string;
}

function typeName(schema: PropertySchema): string {
  if (schema.enum) return schema.enum.map(String).join('|');
  if (schema.anyOf) return schema.anyOf.map(typeName).join(' | ');
  if (schema.type === 'array') return `${schema.items ? typeName(schema.items) : 'any'}[]`;
  return Array.isArray(schema.type) ? schema.type.join('|') : (schema.type ?? 'any');
}

/**
 * The prompt's tool section, generated from the device's MCP tool list, so a new tool needs no prompt
 * edit. Sorted by name so the text (and the cached system prompt) is the same on every start.
 */
export function renderToolDocs(tools: readonly Tool[], hidden: ReadonlySet<string> = new Set()): string {
  return [...tools]
    .filter((tool) => !hidden.has(tool.name))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((tool) => {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, PropertySchema>;
      const required = new Set(tool.inputSchema.required ?? []);
      const args = Object.entries(properties)
        .map(([name, schema]) => `${name}${required.has(name) ? '' : '?'}: ${typeName(schema)}`)
        .join(', ');
      const description = (tool.description ?? '').replace(/\s+/g, ' ').trim();
      return `- ${tool.name}(${args})${description ? `: ${description}` : ''}`;
    })
    .join('\n');
}

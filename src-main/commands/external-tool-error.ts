/** A call, connection or tool list of one of the user's own MCP servers that failed; its message says why. */
export class ExternalToolError extends Error {
  override name = 'ExternalToolError';
}

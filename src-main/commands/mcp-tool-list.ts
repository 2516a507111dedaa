import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ExternalToolError } from './external-tool-error';

/**
 * Reading an MCP server's tool list (external-servers.ts): page by page, keeping the tools the model
 * can be offered, at connect and again, one read at a time, after the server says the list changed.
 */

/** Tools of one server offered at most: each takes room in every prompt and in the tool list. */
export const MAX_TOOLS_PER_SERVER = 100;
/**
 * Pages of a server's tool list read at most: as many as it takes to fill MAX_TOOLS_PER_SERVER with a
 * tool a page. A list that runs longer without filling it (empty pages, a cursor that never runs out)
 * comes from a broken server.
 */
export const MAX_TOOL_PAGES = MAX_TOOLS_PER_SERVER;
/** A tool name the model can write back and the prompt can show: the MCP specification's tool names. */
const ToolNameSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/);

/**
 * The tools of a server that are offered, gathered page by page: named as the MCP specification says
 * (no spaces, line breaks or markup for the prompt and the "available tools" list, at most 128
 * characters), each name once, and no more than MAX_TOOLS_PER_SERVER. Only those are kept, so a
 * server with a huge list costs the memory of one page; once full, no further page is needed.
 */
export class UsableTools {
  readonly tools: Tool[] = [];
  private readonly seen = new Set<string>();
  private badNames = 0;
  private repeated = 0;
  private overCap = 0;

  get full(): boolean {
    return this.tools.length >= MAX_TOOLS_PER_SERVER;
  }

  add(page: readonly Tool[]): void {
    for (const tool of page) {
      if (!ToolNameSchema.safeParse(tool.name).success) this.badNames++;
      else if (this.seen.has(tool.name)) this.repeated++;
      else {
        this.seen.add(tool.name);
        if (this.full) this.overCap++;
        else this.tools.push(tool);
      }
    }
  }

  /** What was left out, one line per reason; `unread`: the list went on past the last page read. */
  leftOut(unread: boolean): string[] {
    const toolsCount = (count: number): string => `${count} tool${count === 1 ? '' : 's'}`;
    const lines: string[] = [];
    if (this.badNames) lines.push(`${toolsCount(this.badNames)} left out: their names are not 1 to 128 letters, digits, '_', '-' or '.'`);
    if (this.repeated) lines.push(`${toolsCount(this.repeated)} left out: named like another of its tools`);
    const cap = `a server offers at most ${MAX_TOOLS_PER_SERVER}`;
    if (unread) lines.push(`tools past the first ${MAX_TOOLS_PER_SERVER} left out${this.overCap ? ` (${this.overCap} more on the pages read)` : ''}: ${cap}, so the rest of its tool list was not read`);
    else if (this.overCap) lines.push(`${toolsCount(this.overCap)} left out: ${cap}`);
    return lines;
  }
}

/** A server's tool list as read: the tools kept, and whether the list went on past the last page read. */
export interface ToolList {
  usable: UsableTools;
  unread: boolean;
}

/**
 * Reads a server's tool list page by page until it ends or MAX_TOOLS_PER_SERVER tools are kept, both
 * when connecting and after the server says the list changed. `signal` bounds all the pages together.
 */
export async function readToolList(client: Client, timeout: number, signal: AbortSignal): Promise<ToolList> {
  const usable = new UsableTools();
  let cursor: string | undefined;
  let pages = 0;
  do {
    if (++pages > MAX_TOOL_PAGES) throw new ExternalToolError(`its tool list did not end after ${MAX_TOOL_PAGES} pages`);
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout, signal });
    usable.add(page.tools);
    cursor = page.nextCursor;
  } while (cursor && !usable.full);
  return { usable, unread: Boolean(cursor) };
}

/**
 * The reads of one connection's changed tool list, one at a time. A change notice that comes during a
 * read brings one more read after it (however many came), and the read it overtook is not kept: it may
 * hold the list from before that change. Two reads never race to be the last one kept.
 */
export class ToolListRereads {
  private notices = 0;
  private reading = false;

  /** `read` must not throw; `isLatest()` tells it whether a notice came since it began. */
  constructor(private readonly read: (isLatest: () => boolean) => Promise<void>) {}

  notice(): void {
    this.notices++;
    if (!this.reading) void this.readUntilLatest();
  }

  private async readUntilLatest(): Promise<void> {
    this.reading = true;
    try {
      let seen: number;
      do {
        seen = this.notices;
        await this.read(() => this.notices === seen);
      } while (this.notices !== seen);
    } finally {
      this.reading = false;
    }
  }
}

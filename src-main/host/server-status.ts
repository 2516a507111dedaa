import type { ExternalServers, ExternalServerStatus } from '../commands/external-servers';
import { redactText } from '../common/scrub';
import { cutWithEllipsis } from '../common/text-head';
import {
  MAX_LEFT_OUT_CHARS,
  MAX_LEFT_OUT_LINES,
  MAX_SERVER_ERROR_CHARS,
  type ServersStatusView,
  type ServerStatusView,
} from '../protocol';
import type { ServerStatusHandler } from '../session/session-service';

/**
 * A server's status as it may leave the host. Its error comes from the server or its HTTP library and
 * may repeat what was sent (a token in a URL or a header echoed back): the known secrets go first,
 * then anything that looks like one, and only then is it cut, so that no cut leaves a secret's start.
 */
export function serverStatusView(status: ExternalServerStatus, scrubText: (text: string) => string): ServerStatusView {
  const clean = (text: string, max: number): string => cutWithEllipsis(redactText(scrubText(text)), max);
  return {
    name: status.name,
    transport: status.transport,
    trusted: status.trusted,
    connected: status.connected,
    toolCount: status.toolCount,
    leftOut: status.leftOut.slice(0, MAX_LEFT_OUT_LINES).map((line) => clean(line, MAX_LEFT_OUT_CHARS)),
    error: status.error === null ? null : clean(status.error, MAX_SERVER_ERROR_CHARS),
  };
}

/** The host's answer to `servers.status` and `servers.check`, every status scrubbed with `scrubText`. */
export function serverStatusHandler(servers: Pick<ExternalServers, 'status' | 'check'>, scrubText: (text: string) => string): ServerStatusHandler {
  const view = (statuses: ExternalServerStatus[]): ServersStatusView => ({
    servers: statuses.map((status) => serverStatusView(status, scrubText)),
  });
  return {
    status: () => view(servers.status()),
    check: async () => view(await servers.check()),
  };
}

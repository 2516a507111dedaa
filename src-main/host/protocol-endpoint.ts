import { HostCommand, MAX_MESSAGE_BYTES, type HostMessage, type ReplyErrorMessage } from '../protocol';
import { CommandError, type SessionService } from '../session/session-service';
import { logError } from '../common/log';

function errorReply(id: string | null, code: ReplyErrorMessage['error']['code'], message: string): ReplyErrorMessage {
  return { type: 'reply', id, ok: false, error: { code, message } };
}

function idOf(value: unknown): string | null {
  if (typeof value === 'object' && value !== null && 'id' in value) {
    const id = (value as { id: unknown }).id;
    if (typeof id === 'string' && id.length <= 64) return id;
  }
  return null;
}

/**
 * Every UI connection (WebSocket, Electron IPC, CLI) goes through here: parse, validate, dispatch, and
 * answer with a reply, an error reply for anything malformed. It never throws.
 */
export class ProtocolEndpoint {
  constructor(private readonly sessions: SessionService) {}

  async handleText(text: string): Promise<HostMessage> {
    if (Buffer.byteLength(text, 'utf8') > MAX_MESSAGE_BYTES) {
      return errorReply(null, 'bad_message', `message larger than ${MAX_MESSAGE_BYTES} bytes`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return errorReply(null, 'bad_message', 'message is not valid JSON');
    }
    return this.handle(value);
  }

  async handle(value: unknown): Promise<HostMessage> {
    const id = idOf(value);
    const parsed = HostCommand.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      return errorReply(id, 'bad_message', `invalid command: ${where}${issue?.message ?? 'unknown problem'}`);
    }
    try {
      const result = await this.sessions.handle(parsed.data);
      return { type: 'reply', id: parsed.data.id, ok: true, result };
    } catch (error) {
      if (error instanceof CommandError) return errorReply(parsed.data.id, error.code, error.message);
      logError('[deskhand] command failed:', error);
      return errorReply(parsed.data.id, 'internal', `the host could not do that: ${this.sessions.describeFailure(error)}`);
    }
  }
}

import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProtocolEndpoint } from '../../src-main/host/protocol-endpoint';
import type { SessionService } from '../../src-main/session/session-service';

/** A session service whose every command fails with `thrown`. */
function failingSessions(thrown: unknown): SessionService {
  const fake: Pick<SessionService, 'handle'> = { handle: () => Promise.reject(thrown) };
  // The endpoint uses only handle().
  return fake as SessionService;
}

afterEach(() => vi.restoreAllMocks());

describe('ProtocolEndpoint never throws', () => {
  it('a command that fails with something other than an Error is an internal error reply (defect: the reply itself threw)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    for (const thrown of ['a string', null, undefined, { code: 42 }]) {
      const endpoint = new ProtocolEndpoint(failingSessions(thrown));
      await expect(endpoint.handleText(JSON.stringify({ type: 'session.list', id: 'r1' })), String(thrown)).resolves.toEqual({
        type: 'reply',
        id: 'r1',
        ok: false,
        error: { code: 'internal', message: expect.stringMatching(/^the host could not do that/) },
      });
    }
  });
});

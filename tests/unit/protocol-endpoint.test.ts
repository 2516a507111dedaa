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

describe('a database found damaged while Deskhand runs', () => {
  it('is named as such in the error reply, with what to do', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // What better-sqlite3 throws when a query meets a damaged page.
    const damaged = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    const locked = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const reply = (thrown: Error) => new ProtocolEndpoint(failingSessions(thrown)).handleText(JSON.stringify({ type: 'session.open', id: 'r1', sessionId: 's1' }));
    await expect(reply(damaged)).resolves.toMatchObject({
      ok: false,
      error: {
        code: 'internal',
        message:
          "the host could not do that: Deskhand's database is damaged (database disk image is malformed). " +
          'Restart Deskhand: it sets the damaged file aside and keeps what can still be read of it.',
      },
    });
    await expect(reply(locked)).resolves.toMatchObject({ ok: false, error: { message: 'the host could not do that: database is locked' } });
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProtocolEndpoint } from '../../src-main/host/protocol-endpoint';
import { DataDiskSpace } from '../../src-main/memory/disk-space';
import { failureMessage } from '../../src-main/session/failure-message';
import type { SessionService } from '../../src-main/session/session-service';

/** A session service whose every command fails with `thrown`. */
function failingSessions(thrown: unknown): SessionService {
  const disk = new DataDiskSpace('/home/ana/.config/Deskhand');
  const fake: Pick<SessionService, 'handle' | 'describeFailure'> = { handle: () => Promise.reject(thrown), describeFailure: (error) => failureMessage(error, disk) };
  // The endpoint uses only these.
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

describe('a full disk met by a command', () => {
  it('is named in the error reply: which disk, and what to do', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const reply = await new ProtocolEndpoint(failingSessions(full)).handleText(JSON.stringify({ type: 'session.continue', id: 'r1', sessionId: 's1', request: 'go on' }));
    expect(reply).toMatchObject({
      ok: false,
      error: {
        code: 'internal',
        message: "the host could not do that: The disk that holds Deskhand's data (/home/ana/.config/Deskhand) is full (SQLITE_FULL): free some space, then try again",
      },
    });
  });
});

import { afterAll, describe, expect, it, vi } from 'vitest';
import { REDACTED_SECRET } from '../../src-main/common/scrub';
import type { FormView } from '../../src-main/protocol';
import { followUp, replies, startHostHarness, type HostHarness } from '../support/host-harness';

// Everything is scrubbed when saved, but only of the secrets known then. A secret added later (a new
// key, a new MCP server token) must still not go out in an export of what was stored before it.
const SECRET = 'tok-export-9f8e7d6c5b4a';

describe('session.export', () => {
  let harness: HostHarness;
  afterAll(async () => {
    await harness?.close();
    vi.unstubAllEnvs();
  });

  it('leaves out a secret, made known after the run, that is in a request, a follow-up request and form data', async () => {
    const form = { schema: { type: 'object', properties: { password: { type: 'string' } } } };
    harness = await startHostHarness({
      name: 'a form, done, then a follow-up',
      steps: [
        replies.app({ Function: '', Status: 'PENDING', Questions: [], Form: form }),
        replies.app({ Function: '', Status: 'FINISH' }),
        replies.app({ Function: '', Status: 'FINISH' }),
      ],
    });
    const { events } = harness;
    let host = harness.host;
    const started = await host.endpoint.handle({ type: 'session.start', id: 'start', request: `log in with ${SECRET}`, mode: 'shell' });
    if (started.type !== 'reply' || !started.ok) throw new Error(JSON.stringify(started));
    const sessionId = (started.result as { session: { id: string } }).session.id;
    const opened = (): FormView | undefined => events.flatMap((event) => (event.kind === 'form.updated' ? [event.form] : []))[0];
    await expect.poll(opened, { timeout: 20_000 }).toBeDefined();
    const formId = opened()?.formId ?? '';
    for (const [path, action] of [['password', null], ['', 'submit']] as const) {
      const reply = await host.endpoint.handle({ type: 'form.event', id: 'f', sessionId, formId, path, value: path ? SECRET : null, action });
      expect(reply).toMatchObject({ ok: true });
    }
    expect(await host.sessions.running).toMatchObject({ status: 'finished' });
    await followUp(host, sessionId, `and again with ${SECRET}`);

    // Not a known secret while it ran, so stored as typed: without the export's own scrubbing it would go out.
    expect(host.store.getSession(sessionId)?.request).toContain(SECRET);
    vi.stubEnv('DESKHAND_EXPORT_TEST_TOKEN', SECRET);
    host = await harness.restart();
    expect(JSON.stringify(await host.endpoint.handle({ type: 'session.open', id: 'o', sessionId }))).toContain(SECRET);

    const exported = await host.endpoint.handle({ type: 'session.export', id: 'e', sessionId });
    if (exported.type !== 'reply' || !exported.ok) throw new Error(JSON.stringify(exported));
    const { json } = exported.result as { json: string };
    expect(json).not.toContain(SECRET);
    const document = JSON.parse(json) as { session: { request: string }; rounds: Array<{ request: string }>; forms: FormView[] };
    expect(document.session.request).toBe(`log in with ${REDACTED_SECRET}`);
    expect(document.rounds.map((round) => round.request)).toEqual([`log in with ${REDACTED_SECRET}`, `and again with ${REDACTED_SECRET}`]);
    expect(document.forms[0]?.data).toEqual({ password: REDACTED_SECRET });
  });
});

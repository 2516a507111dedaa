import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src-main/memory/database';
import { InteractionStore } from '../../src-main/memory/interaction-store';
import { MAX_FORM_SPEC_BYTES, type FormView, type HostEvent } from '../../src-main/protocol';
import { SECRET_NOT_KEPT, SessionForms, setAtPath } from '../../src-main/session/form-service';
import { replies, startHostHarness, type HostHarness } from '../support/host-harness';

const SPEC = { schema: { type: 'object', properties: { note: { type: 'string' } } }, data: { note: 'short' } };
const TOO_LONG = 'x'.repeat(70 * 1024);

describe('SessionForms: a user edit that would make the form too large to show', () => {
  let dir: string;
  let db: Db;
  let store: InteractionStore;
  let emitted: HostEvent[];
  let remembered: string[];
  let forms: SessionForms;
  let form: FormView;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'deskhand-forms-'));
    db = openDatabase(join(dir, 'deskhand.db'));
    db.prepare(`INSERT INTO sessions (id, title, request, mode, status, created_at, updated_at) VALUES ('s1', 't', 'r', 'desktop', 'running', 0, 0)`).run();
    store = new InteractionStore(db);
    emitted = [];
    remembered = [];
    forms = new SessionForms('s1', store, (event) => emitted.push(event), (value) => remembered.push(value));
    form = forms.open('AppAgent', SPEC);
    emitted.length = 0;
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is refused with a clear error; the stored form is unchanged and nothing is emitted', () => {
    expect(() => forms.handleEvent(form.formId, 'note', TOO_LONG, null)).toThrow(/too large.*at most 64 KB.*not saved/);
    expect(store.forms('s1')).toEqual([form]);
    expect(emitted).toEqual([]);
  });

  it('repeated edits cannot grow the data without bound', () => {
    const chunk = 'y'.repeat(8 * 1024);
    let refused = 0;
    for (let index = 0; index < 20; index++) {
      try {
        forms.handleEvent(form.formId, `field${index}`, chunk, null);
      } catch {
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
    const [stored] = store.forms('s1');
    const bytes = Buffer.byteLength(JSON.stringify({ schema: stored?.schema, uischema: stored?.uischema, data: stored?.data }));
    expect(bytes).toBeLessThanOrEqual(MAX_FORM_SPEC_BYTES);
  });

  it('an edit that fits is kept, and a button press after a refused edit gets the data as stored', async () => {
    const waiting = forms.waitForAction('AppAgent', new AbortController().signal);
    forms.handleEvent(form.formId, 'note', 'fits', null);
    expect(() => forms.handleEvent(form.formId, 'note', TOO_LONG, 'submit')).toThrow(/too large/);
    forms.handleEvent(form.formId, '', null, 'submit');
    expect(await waiting).toMatchObject({ action: 'submit', data: { note: 'fits' } });
  });

  it('a button pressed before the agent waits on the form is kept for it, and dropped when the form closes', async () => {
    forms.handleEvent(form.formId, 'note', 'early', 'Send');
    await expect(forms.waitForAction('AppAgent', new AbortController().signal)).resolves.toMatchObject({ action: 'Send', data: { note: 'early' } });
    forms.handleEvent(form.formId, '', null, 'Send');
    forms.closeAll();
    expect(store.forms('s1')).toMatchObject([{ formId: form.formId, state: 'closed' }]);
    expect(() => forms.handleEvent(form.formId, '', null, 'Send')).toThrow(/closed or unknown/);
    await expect(forms.waitForAction('AppAgent', new AbortController().signal)).rejects.toThrow(/no open form/);
  });

  it('a press kept for later carries the data as it is when the agent waits, and an update of the form drops it', async () => {
    forms.handleEvent(form.formId, 'note', 'first', 'Send');
    forms.handleEvent(form.formId, 'note', 'edited after the press', null);
    await expect(forms.waitForAction('AppAgent', new AbortController().signal)).resolves.toMatchObject({ action: 'Send', data: { note: 'edited after the press' } });

    // "Cancel" on a progress form, then the agent replaces it with a question: the old press is no answer.
    forms.handleEvent(form.formId, '', null, 'Cancel');
    forms.open('AppAgent', { schema: { type: 'object', properties: { choice: { type: 'string' } } } });
    const waiting = forms.waitForAction('AppAgent', new AbortController().signal);
    const settled = await Promise.race([waiting.then(() => 'answered'), new Promise((done) => setTimeout(() => done('still waiting'), 50))]);
    expect(settled).toBe('still waiting');
    forms.handleEvent(form.formId, 'choice', 'b', 'Send');
    await expect(waiting).resolves.toMatchObject({ action: 'Send', data: { choice: 'b' } });
  });

  it('after a crash, the session\'s open forms are closed (no agent is left to read them)', () => {
    store.closeOpenForms('s1');
    expect(store.forms('s1')).toMatchObject([{ formId: form.formId, state: 'closed', data: { note: 'short' } }]);
    expect(new SessionForms('s1', store, () => {}).all()).toMatchObject([{ state: 'closed' }]);
  });

  it('a spec the UI would refuse to show is refused when opened, with the reason, so the agent is not left waiting on it', () => {
    const refused = [
      [{ schema: SPEC.schema, uischema: { type: 'HTML', html: '<img src=x onerror=alert(1)>' } }, /uischema: element type "HTML" is not one/],
      [{ schema: SPEC.schema, uischema: { type: 'Button', label: 'Go', props: {} } }, /uischema\.props\.action/],
      [{ schema: { type: 'object', properties: { a: { $dynamicRef: 'https://evil.example/s.json' } } } }, /\$dynamicRef .* points outside the form/],
      [{ schema: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } } }, /\$ref #\/definitions\/missing is not in the schema/],
    ] as const;
    for (const [spec, reason] of refused) {
      expect(() => forms.open('AppAgent', spec)).toThrow(reason);
    }
    expect(store.forms('s1')).toEqual([form]);
    expect(emitted).toEqual([]);
  });

  it('an update whose schema references expand without end is refused at once, before what it carries over is worked out', () => {
    // Each level's two fields use the next: 2^20 paths to look through for passwords, in the host's one thread.
    const definitions: Record<string, unknown> = { d20: { type: 'string' } };
    for (let level = 0; level < 20; level++) {
      const next = { $ref: `#/definitions/d${level + 1}` };
      definitions[`d${level}`] = { type: 'object', properties: { a: next, b: next } };
    }
    const started = Date.now();
    expect(() => forms.open('AppAgent', { schema: { type: 'object', definitions, properties: { x: { $ref: '#/definitions/d0' } } } })).toThrow(
      /references loop or expand/,
    );
    expect(Date.now() - started).toBeLessThan(500);
    expect(store.forms('s1')).toEqual([form]);
  });

  it('keeps the values of secret fields (format password, writeOnly, a password Control) out of the database; the agent still gets them', async () => {
    const schema = {
      type: 'object',
      properties: {
        user: { type: 'string' },
        pass: { type: 'string', format: 'password' },
        account: { type: 'object', properties: { token: { type: 'string', writeOnly: true } } },
        pin: { type: 'string' },
      },
    };
    const uischema = {
      type: 'VerticalLayout',
      elements: ['user', 'pass', 'account', 'pin'].map((name) => ({ type: 'Control', scope: `#/properties/${name}`, ...(name === 'pin' ? { options: { format: 'password' } } : {}) })),
    };
    const secret = forms.open('AppAgent', { schema, uischema, data: { user: 'me', pass: 'given-by-the-model' } });
    forms.handleEvent(secret.formId, 'pass', 'hunter2-typed', null);
    forms.handleEvent(secret.formId, 'account.token', 'tok-typed-123', null);
    forms.handleEvent(secret.formId, 'pin', '4321-typed', null);
    const stored = JSON.stringify(store.forms('s1'));
    for (const value of ['given-by-the-model', 'hunter2-typed', 'tok-typed-123', '4321-typed']) expect(stored).not.toContain(value);
    expect(store.forms('s1')[0]?.data).toEqual({ user: 'me', account: {} });
    forms.handleEvent(secret.formId, '', null, 'Log in');
    await expect(forms.waitForAction('AppAgent', new AbortController().signal)).resolves.toEqual({
      action: 'Log in',
      data: { user: 'me', pass: 'hunter2-typed', account: { token: 'tok-typed-123' }, pin: '4321-typed' },
      // What may be kept (the blackboard's stored record): the passwords marked, the rest as typed.
      kept: { user: 'me', pass: SECRET_NOT_KEPT, account: { token: SECRET_NOT_KEPT }, pin: SECRET_NOT_KEPT },
    });
    // The host is told each password, to leave it out of whatever it stores from now on.
    expect(remembered.sort()).toEqual(['4321-typed', 'hunter2-typed', 'tok-typed-123']);
  });

  it("an update that no longer hides a field leaves behind what was typed into the hidden ones, rather than storing it in clear; one that still hides them keeps it", async () => {
    const hidden = { type: 'object', properties: { user: { type: 'string' }, pass: { type: 'string', format: 'password' } } };
    const shown = { type: 'object', properties: { user: { type: 'string' }, pass: { type: 'string', title: 'Password (shown)' } } };
    const login = forms.open('AppAgent', { schema: hidden });
    forms.handleEvent(login.formId, 'user', 'me', null);
    forms.handleEvent(login.formId, 'pass', 'hunter2-typed', null);
    // A new hint, the password still hidden: what was typed stays, as before.
    forms.open('AppAgent', { schema: { ...hidden, title: 'Log in again' } });
    forms.handleEvent(login.formId, '', null, 'Log in');
    await expect(forms.waitForAction('AppAgent', new AbortController().signal)).resolves.toMatchObject({ data: { user: 'me', pass: 'hunter2-typed' } });
    // The field shown in clear from now on: the password typed before is not carried into it.
    const update = forms.open('AppAgent', { schema: shown });
    expect(update.data).toMatchObject({ user: 'me' });
    expect(update.data).not.toHaveProperty('pass');
    expect(JSON.stringify(store.forms('s1'))).not.toContain('hunter2-typed');
    // Nor is it sent to the window again, to show in the clear field.
    expect(JSON.stringify(emitted.at(-1))).not.toContain('hunter2-typed');
  });

  it('keeps passwords out of the database in the items of a list and in fields defined through a $ref', async () => {
    const schema = {
      type: 'object',
      definitions: { secret: { type: 'string', format: 'password' } },
      properties: {
        accounts: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, pass: { type: 'string', format: 'password' } } } },
        pins: { type: 'array', items: { type: 'string', writeOnly: true } },
        master: { $ref: '#/definitions/secret' },
      },
    };
    // The list of PINs is also shown as password boxes by its Control: its items are still dropped once each.
    const uischema = {
      type: 'VerticalLayout',
      elements: [
        { type: 'Control', scope: '#/properties/accounts' },
        { type: 'Control', scope: '#/properties/pins/items', options: { format: 'password' } },
        { type: 'Control', scope: '#/properties/master' },
      ],
    };
    const secret = forms.open('AppAgent', { schema, uischema, data: { accounts: [{ name: 'mail' }, { name: 'bank' }] } });
    forms.handleEvent(secret.formId, 'accounts.0.pass', 'mail-pass-typed', null);
    forms.handleEvent(secret.formId, 'accounts.1.pass', 'bank-pass-typed', null);
    forms.handleEvent(secret.formId, 'pins', ['1234-typed', '5678-typed'], null);
    forms.handleEvent(secret.formId, 'master', 'master-typed', null);
    const stored = JSON.stringify(store.forms('s1'));
    for (const value of ['mail-pass-typed', 'bank-pass-typed', '1234-typed', '5678-typed', 'master-typed']) expect(stored).not.toContain(value);
    // A secret item of a list is emptied, not removed, so the items after it keep the places edits name.
    expect(store.forms('s1')[0]?.data).toEqual({ accounts: [{ name: 'mail' }, { name: 'bank' }], pins: ['', ''] });
    forms.handleEvent(secret.formId, '', null, 'Log in');
    const { kept } = await forms.waitForAction('AppAgent', new AbortController().signal);
    expect(kept).toEqual({
      accounts: [
        { name: 'mail', pass: SECRET_NOT_KEPT },
        { name: 'bank', pass: SECRET_NOT_KEPT },
      ],
      pins: [SECRET_NOT_KEPT, SECRET_NOT_KEPT],
      master: SECRET_NOT_KEPT,
    });
    expect(remembered.sort()).toEqual(['1234-typed', '5678-typed', 'bank-pass-typed', 'mail-pass-typed', 'master-typed']);
  });

  it('a form an agent opens is measured with its data too', () => {
    expect(() => forms.open('AppAgent', { schema: SPEC.schema })).not.toThrow();
    // The spec alone is just under the limit; with the data carried over from the open form it is over.
    const bare = Buffer.byteLength(JSON.stringify({ schema: { ...SPEC.schema, title: '' } }));
    const spec = { schema: { ...SPEC.schema, title: 'y'.repeat(MAX_FORM_SPEC_BYTES - 10 - bare) } };
    expect(Buffer.byteLength(JSON.stringify(spec))).toBeLessThan(MAX_FORM_SPEC_BYTES);
    expect(() => forms.open('AppAgent', spec)).toThrow(/with its data; at most/);
  });
});

describe('form.event over the protocol: a too large edit', () => {
  let harness: HostHarness;
  afterAll(() => harness?.close());

  it('is answered with an error, and the run still waits on a form the UI can show', async () => {
    const form = { schema: { type: 'object', properties: { note: { type: 'string' } } }, data: { note: 'short' } };
    harness = await startHostHarness({
      name: 'a form, then done',
      steps: [replies.app({ Function: '', Status: 'PENDING', Questions: [], Form: form }), replies.app({ Function: '', Status: 'FINISH' })],
    });
    const { host, events } = harness;
    const started = await host.endpoint.handle({ type: 'session.start', id: 'start', request: 'ask me', mode: 'shell' });
    if (started.type !== 'reply' || !started.ok) throw new Error(JSON.stringify(started));
    const sessionId = (started.result as { session: { id: string } }).session.id;
    const formUpdates = (): FormView[] => events.flatMap((event) => (event.kind === 'form.updated' ? [event.form] : []));
    await expect.poll(() => formUpdates().length, { timeout: 20_000 }).toBe(1);
    const [opened] = formUpdates();
    if (!opened) throw new Error('no form');

    const reply = await host.endpoint.handle({ type: 'form.event', id: 'edit', sessionId, formId: opened.formId, path: 'note', value: TOO_LONG, action: null });
    expect(reply).toMatchObject({ type: 'reply', id: 'edit', ok: false, error: { code: 'bad_message', message: expect.stringMatching(/too large/) } });
    const prototypePath = await host.endpoint.handle({ type: 'form.event', id: 'proto', sessionId, formId: opened.formId, path: 'a.__proto__.b', value: 1, action: null });
    expect(prototypePath).toMatchObject({ ok: false, error: { code: 'bad_message', message: "refused form path 'a.__proto__.b'" } });
    const unknown = await host.endpoint.handle({ type: 'form.event', id: 'other', sessionId, formId: 'no-such-form', path: 'note', value: 'x', action: null });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'conflict', message: 'that form is closed or unknown' } });
    expect(formUpdates()).toHaveLength(1);
    const detail = await host.endpoint.handle({ type: 'session.open', id: 'open', sessionId });
    expect(detail).toMatchObject({ ok: true, result: { forms: [{ formId: opened.formId, data: { note: 'short' } }] } });

    const submitted = await host.endpoint.handle({ type: 'form.event', id: 'submit', sessionId, formId: opened.formId, path: '', value: null, action: 'submit' });
    expect(submitted).toMatchObject({ ok: true });
    expect(await host.sessions.running).toMatchObject({ status: 'finished' });
  });
});

describe('setAtPath: a path into the form data', () => {
  it('sets values in objects and arrays, and appends one item at the end of an array', () => {
    expect(setAtPath({ a: { b: 1 } }, 'a.c', 2)).toEqual({ a: { b: 1, c: 2 } });
    expect(setAtPath({ items: ['x'] }, 'items.0', 'y')).toEqual({ items: ['y'] });
    expect(setAtPath({ items: ['x'] }, '/items/1', 'z')).toEqual({ items: ['x', 'z'] });
    expect(setAtPath({ items: [] }, 'items.0.name', 'Ada')).toEqual({ items: [{ name: 'Ada' }] });
    // An object may have keys that look like numbers, or are called length.
    expect(setAtPath({ byYear: {} }, 'byYear.2024', 3)).toEqual({ byYear: { 2024: 3 } });
    expect(setAtPath({ box: {} }, 'box.length', 3)).toEqual({ box: { length: 3 } });
  });

  it('refuses an array\'s length and an index past its end, at once and without growing anything', () => {
    const started = performance.now();
    for (const [data, path] of [
      [{ items: [] }, 'items.length'],
      [{ items: [] }, 'items.90000000'],
      [{ items: ['x'] }, 'items.2'],
      [{ items: ['x'] }, 'items.-1'],
      [{ items: ['x'] }, 'items.01'],
      [{ items: [[]] }, 'items.0.length'],
      [{ items: [] }, 'items.5.name'],
    ] as const) {
      expect(() => setAtPath(structuredClone(data) as Record<string, unknown>, path, 90_000_000), path).toThrow(
        expect.objectContaining({ code: 'bad_message' }),
      );
    }
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUiHost, type FakeUiHost } from '../support/fake-ui-host';
import { makeStep } from '../support/ui-fixtures';
import { openUi, saveScreenshot, type UiPage } from '../support/ui-page';
import { launchChromium } from '../support/web-app';

let browser: Browser;
let host: FakeUiHost;
let ui: UiPage;
let sessionId: string;

beforeAll(async () => {
  browser = await launchChromium();
  host = await startFakeUiHost();
  ui = await openUi(browser, host);
  await ui.page.getByRole('textbox', { name: 'Request' }).fill('book a hotel in Lisbon for the conference');
  await ui.page.getByRole('button', { name: 'Send' }).click();
  await host.waitForCommand('session.start');
  sessionId = [...host.sessions.keys()][0] ?? '';
  host.addStep(makeStep(sessionId, 0, { agent: 'HostAgent', target: null, subtask: null, actionText: 'No action', action: null }));
});

afterAll(async () => {
  await ui?.close();
  await host?.close();
  await browser?.close();
});

const tripSchema = {
  title: 'Trip details',
  type: 'object',
  properties: {
    city: { type: 'string', title: 'City' },
    nights: { type: 'integer', title: 'Nights', minimum: 1 },
    breakfast: { type: 'boolean', title: 'Breakfast' },
  },
  required: ['city'],
};

const tripUi = {
  type: 'VerticalLayout',
  elements: [
    {
      type: 'Markdown',
      text: '**Where** shall I book? See [the venue](https://example.com/venue). <img src=x onerror="alert(1)"><script>window.pwned=1</script> [bad link](javascript:window.pwned=2)',
    },
    { type: 'Control', scope: '#/properties/city' },
    { type: 'Control', scope: '#/properties/nights' },
    { type: 'Control', scope: '#/properties/breakfast' },
    { type: 'Button', label: 'Search hotels', props: { action: 'search' } },
  ],
};

describe('agent forms in the browser UI (fake host)', () => {
  it('creates, fills (debounced), presses its Button (at once), updates and closes a form', async () => {
    const { page } = ui;
    host.upsertForm({ formId: 'trip', sessionId, agent: 'AppAgent', schema: tripSchema, uischema: tripUi, data: { nights: 2 }, state: 'open' });
    const card = page.getByRole('region', { name: 'Trip details' });
    await card.waitFor();

    // Markdown: formatted, with a safe external link; raw HTML and script links are not rendered.
    await card.locator('strong', { hasText: 'Where' }).waitFor();
    const venue = card.getByRole('link', { name: 'the venue' });
    expect(await venue.getAttribute('href')).toBe('https://example.com/venue');
    expect(await venue.getAttribute('target')).toBe('_blank');
    expect(await venue.getAttribute('rel')).toContain('noopener');
    expect(await card.getByRole('link', { name: 'bad link' }).count()).toBe(0);
    expect(await card.locator('script, img').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();

    // Typing sends one value event after a pause, not one per key.
    await card.getByRole('textbox', { name: 'City' }).pressSequentially('Lisbon', { delay: 40 });
    const city = await host.waitForCommand('form.event', (command) => command.path === 'city');
    expect(city).toMatchObject({ sessionId, formId: 'trip', value: 'Lisbon', action: null });
    await page.waitForTimeout(700);
    expect(host.commands('form.event').filter((command) => command.path === 'city')).toHaveLength(1);

    await card.getByRole('checkbox', { name: 'Breakfast' }).check();
    const breakfast = await host.waitForCommand('form.event', (command) => command.path === 'breakfast');
    expect(breakfast.value).toBe(true);

    // A Button sends its action at once (after what was typed before it).
    await card.getByRole('spinbutton', { name: 'Nights' }).fill('4');
    const pressedAt = Date.now();
    await card.getByRole('button', { name: 'Search hotels' }).click();
    const action = await host.waitForCommand('form.event', (command) => command.action === 'search');
    expect(Date.now() - pressedAt).toBeLessThan(1_000);
    const events = host.commands('form.event');
    const nights = events.findIndex((command) => command.path === 'nights' && command.value === 4);
    expect(nights).toBeGreaterThan(-1);
    expect(nights).toBeLessThan(events.indexOf(action));
    await saveScreenshot(page, 'agent-form');

    // The agent updates the form: new data and a new field.
    host.upsertForm({
      formId: 'trip',
      sessionId,
      agent: 'AppAgent',
      schema: { ...tripSchema, properties: { ...tripSchema.properties, hotel: { type: 'string', title: 'Hotel', enum: ['Hotel Avenida', 'Casa do Rio'] } } },
      uischema: { ...tripUi, elements: [...tripUi.elements.slice(0, 4), { type: 'Control', scope: '#/properties/hotel' }, tripUi.elements[4]] },
      data: { city: 'Lisbon', nights: 3, breakfast: true, hotel: 'Casa do Rio' },
      state: 'open',
    });
    await expect.poll(() => card.getByRole('spinbutton', { name: 'Nights' }).inputValue()).toBe('3');
    await expect.poll(() => card.getByRole('combobox', { name: 'Hotel' }).inputValue()).toBe('Casa do Rio');

    // Closed: still there, greyed, marked "Closed", nothing in it works.
    host.upsertForm({ ...host.sessions.get(sessionId)!.forms[0]!, state: 'closed' });
    await card.getByText('Closed', { exact: true }).waitFor();
    await expect.poll(() => card.getByRole('textbox', { name: 'City' }).isDisabled()).toBe(true);
    expect(await card.getByRole('button', { name: 'Search hotels' }).isDisabled()).toBe(true);
    expect(Number(await card.evaluate((element) => element.ownerDocument.defaultView?.getComputedStyle(element).opacity))).toBeLessThan(1);
    await saveScreenshot(page, 'agent-form-closed');
    expect(ui.problems).toEqual([]);
  });

  it('keeps an edit not sent yet when the agent updates the form meanwhile', async () => {
    const { page } = ui;
    const schema = { title: 'Room', type: 'object', properties: { nights: { type: 'integer', title: 'Nights' }, breakfast: { type: 'boolean', title: 'Breakfast' } } };
    const room = { formId: 'room', sessionId, agent: 'AppAgent', schema, uischema: null, state: 'open' as const };
    host.upsertForm({ ...room, data: { nights: 1 } });
    const card = page.getByRole('region', { name: 'Room' });
    await card.getByRole('checkbox', { name: 'Breakfast' }).check();
    // JSONForms passes the tick on within a few ms; ours waits 300 ms before sending it. In between,
    // the agent changes another field.
    await page.waitForTimeout(100);
    expect(host.commands('form.event').filter((command) => command.formId === 'room')).toHaveLength(0);
    host.upsertForm({ ...room, data: { nights: 2 } });
    await expect.poll(() => card.getByRole('spinbutton', { name: 'Nights' }).inputValue()).toBe('2');
    const breakfast = await host.waitForCommand('form.event', (command) => command.formId === 'room' && command.path === 'breakfast');
    expect(breakfast.value).toBe(true);
    expect(await card.getByRole('checkbox', { name: 'Breakfast' }).isChecked()).toBe(true);
    expect(ui.problems).toEqual([]);
  });

  it('keeps a checkbox tick when the agent’s update lands before JSONForms passes the tick on', async () => {
    // JSONForms calls onChange 10 ms after a click. To land an update in that window every time, this
    // page can hold the host's messages about a form until the next click, and deliver them right after it.
    const initScript = `
      window.__held = [];
      window.__holdFormId = null;
      const Native = window.WebSocket;
      window.WebSocket = class extends Native {
        addEventListener(type, listener, options) {
          if (type !== 'message') return super.addEventListener(type, listener, options);
          return super.addEventListener(type, (event) => {
            const hold = window.__holdFormId !== null && typeof event.data === 'string' && event.data.includes('"formId":"' + window.__holdFormId + '"');
            if (hold) window.__held.push(() => listener(event));
            else listener(event);
          }, options);
        }
      };
      document.addEventListener('click', () => setTimeout(() => window.__held.splice(0).forEach((deliver) => deliver()), 0), true);
    `;
    const late = await openUi(browser, host, { initScript });
    try {
      const { page } = late;
      await page.getByRole('link', { name: /book a hotel in Lisbon/ }).click();
      const schema = { title: 'Late room', type: 'object', properties: { nights: { type: 'integer', title: 'Nights' }, breakfast: { type: 'boolean', title: 'Breakfast' } } };
      const room = { formId: 'late', sessionId, agent: 'AppAgent', schema, uischema: null, state: 'open' as const };
      host.upsertForm({ ...room, data: { nights: 1 } });
      const card = page.getByRole('region', { name: 'Late room' });
      const checkbox = card.getByRole('checkbox', { name: 'Breakfast' });
      await checkbox.waitFor();

      await page.evaluate('window.__holdFormId = "late"');
      host.upsertForm({ ...room, data: { nights: 2 } });
      await expect.poll(() => page.evaluate('window.__held.length')).toBe(1);
      await checkbox.click();
      await expect.poll(() => card.getByRole('spinbutton', { name: 'Nights' }).inputValue()).toBe('2');
      const breakfast = await host.waitForCommand('form.event', (command) => command.formId === 'late' && command.path === 'breakfast');
      expect(breakfast.value).toBe(true);
      expect(await checkbox.isChecked()).toBe(true);
      expect(late.problems).toEqual([]);
    } finally {
      await late.close();
    }
  });

  it('shows a field the schema marks secret as a password box, labelled', async () => {
    const { page } = ui;
    const schema = { title: 'Sign in', type: 'object', properties: { user: { type: 'string', title: 'User' }, pass: { type: 'string', title: 'Password', format: 'password' } } };
    host.upsertForm({ formId: 'login', sessionId, agent: 'AppAgent', schema, uischema: null, data: {}, state: 'open' });
    const card = page.getByRole('region', { name: 'Sign in' });
    await card.waitFor();
    expect(await card.getByLabel('Password').getAttribute('type')).toBe('password');
    expect(await card.getByLabel('User').getAttribute('type')).toBe('text');
  });

  it('shows a secret field reached through a $ref, or in the items of a list, as a password box too', async () => {
    const { page } = ui;
    const schema = {
      title: 'Accounts',
      type: 'object',
      definitions: { secret: { type: 'string', title: 'Master password', format: 'password' } },
      properties: {
        master: { $ref: '#/definitions/secret' },
        accounts: {
          type: 'array',
          title: 'Accounts',
          items: { type: 'object', properties: { site: { type: 'string', title: 'Site' }, pin: { type: 'string', title: 'PIN', writeOnly: true } } },
        },
      },
    };
    host.upsertForm({ formId: 'vault', sessionId, agent: 'AppAgent', schema, uischema: null, data: { accounts: [{ site: 'bank', pin: '' }] }, state: 'open' });
    const card = page.getByRole('region', { name: 'Accounts' }).first();
    await card.waitFor();
    await card.getByLabel('Master password').waitFor();
    expect(await card.getByLabel('Master password').getAttribute('type')).toBe('password');
    // The list's row: its site in clear, its PIN hidden.
    const row = card.getByRole('row').filter({ has: page.locator('input[value="bank"]') });
    expect(await row.locator('input').evaluateAll((inputs) => inputs.map((input) => input.getAttribute('type')))).toEqual(['text', 'password']);
    // A row added by the user gets the password box too.
    await card.getByRole('button', { name: /add/i }).first().click();
    await expect.poll(() => card.locator('input[type="password"]').count()).toBe(3);
  });

  it('takes a press of its Button right after a field is typed in, though the form’s warnings show as the field lets go', async () => {
    const { page } = ui;
    host.upsertForm({
      formId: 'contact',
      sessionId,
      agent: 'AppAgent',
      schema: { title: 'Contact', type: 'object', properties: { name: { type: 'string', title: 'Name' }, email: { type: 'string', title: 'Email' } }, required: ['name', 'email'] },
      uischema: { type: 'VerticalLayout', elements: [{ type: 'Control', scope: '#/properties/name' }, { type: 'Control', scope: '#/properties/email' }, { type: 'Button', label: 'Check the name', props: { action: 'check' } }] },
      data: {},
      state: 'open',
    });
    const card = page.getByRole('region', { name: 'Contact' });
    await card.getByRole('textbox', { name: 'Name' }).fill('Ana');
    // A person's press: down, and up a moment later. Pressing takes the focus out of the field, which passes
    // the name on; the form then marks the empty Email as required: the button must not slip from under the pointer.
    const button = card.getByRole('button', { name: 'Check the name' });
    await button.scrollIntoViewIfNeeded();
    const box = await button.boundingBox();
    if (!box) throw new Error('the button is not on screen');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    // Held past the field's holding back of keystrokes: the name arrives and the warnings show while it is down.
    await page.waitForTimeout(800);
    await page.mouse.up();
    await host.waitForCommand('form.event', (command) => command.formId === 'contact' && command.action === 'check', 3_000);
    const name = host.commands('form.event').find((command) => command.formId === 'contact' && command.path === 'name');
    expect(name?.value).toBe('Ana');
    expect(ui.problems).toEqual([]);
  });

  it('shows a clear message instead of a form whose spec is invalid', async () => {
    const { page } = ui;
    const base = { sessionId, agent: 'AppAgent', data: {}, state: 'open' as const };
    host.upsertForm({ ...base, formId: 'frame', schema: { title: 'Sneaky frame', type: 'object', properties: {} }, uischema: { type: 'VerticalLayout', elements: [{ type: 'Iframe', src: 'https://evil.example' }] } });
    host.upsertForm({ ...base, formId: 'remote', schema: { title: 'Remote ref', type: 'object', properties: { a: { $ref: 'https://evil.example/schema.json' } } }, uischema: null });
    host.upsertForm({ ...base, formId: 'huge', schema: { title: 'Huge form', type: 'object', properties: { a: { type: 'string', default: 'x'.repeat(70_000) } } }, uischema: null });
    host.upsertForm({ ...base, formId: 'array', schema: { title: 'Not an object', type: 'array' }, uischema: null });
    // JSONForms throws on a field type it does not know: that blanked the window before the check refused it.
    host.upsertForm({ ...base, formId: 'odd', schema: { title: 'Odd field', type: 'object', properties: { when: { type: 'moment' } } }, uischema: null });

    const frame = page.getByRole('region', { name: 'Sneaky frame' });
    await frame.getByText('This form cannot be shown').waitFor();
    await frame.getByText(/element type "Iframe" is not one Deskhand shows/).waitFor();
    expect(await frame.locator('iframe').count()).toBe(0);
    await page.getByRole('region', { name: 'Remote ref' }).getByText(/points outside the form/).waitFor();
    await page.getByRole('region', { name: 'Huge form' }).getByText(/The form is too large/).waitFor();
    await page.getByRole('region', { name: 'Not an object' }).getByText(/must be an object schema/).waitFor();
    await page.getByRole('region', { name: 'Odd field' }).getByText(/"moment" is not a JSON Schema type/).waitFor();
    await page.getByRole('region', { name: 'Sneaky frame' }).scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'agent-form-invalid');
    expect(ui.problems).toEqual([]);
  });
});

import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeSession, makeStep } from '../support/ui-fixtures';
import { framesAtOnce, saveScreenshot, uiPerTest } from '../support/ui-page';

// Each test opens the UI itself: in the colour scheme it checks, or as it is.
const fresh = uiPerTest({
  open: false,
});

/** What the contrast check reads of an element and its ancestors (the tests are type-checked without the DOM library). */
interface StyledNode {
  parentElement: StyledNode | null;
}
type ComputedStyleOf = (node: StyledNode) => { color: string; backgroundColor: string };

/**
 * The WCAG contrast ratio of an element's text against the first opaque background behind it (the
 * page's, if none is set on the way up).
 */
async function contrastOf(locator: Locator): Promise<number> {
  return locator.evaluate((element) => {
    const styleOf = (globalThis as unknown as { getComputedStyle: ComputedStyleOf }).getComputedStyle;
    const rgb = (css: string): number[] => (css.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = (css: string): number => {
      const [r = 0, g = 0, b = 0] = rgb(css).map((value) => {
        const channel = value / 255;
        return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    let background = 'rgb(255, 255, 255)';
    for (let node: StyledNode | null = element as unknown as StyledNode; node; node = node.parentElement) {
      const css = styleOf(node).backgroundColor;
      const alpha = rgb(css)[3];
      if (css !== 'transparent' && (alpha === undefined || alpha === 1)) {
        background = css;
        break;
      }
    }
    const [light = 0, dark = 0] = [luminance(styleOf(element as unknown as StyledNode).color), luminance(background)].sort((a, b) => b - a);
    return (light + 0.05) / (dark + 0.05);
  });
}

describe('text contrast in both themes (review)', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`keeps status chips and the "Waiting for you" heading readable (4.5:1) in the ${colorScheme} theme`, async () => {
      const { host } = fresh;
      const ui = await fresh.open({ colorScheme });
      const { page } = ui;
      await page.getByRole('textbox', { name: 'Request' }).fill('save the report');
      await page.getByRole('textbox', { name: 'Request' }).press('Enter');
      await host.waitForCommand('session.start');
      const sessionId = [...host.sessions.keys()].at(-1) ?? '';
      host.addStep(makeStep(sessionId, 0, { status: 'SCREENSHOT' }));
      host.addStep(makeStep(sessionId, 1, { status: 'CONFIRM', approvedBy: 'user' }));
      host.addStep(makeStep(sessionId, 2, { status: 'PENDING' }));
      host.requestInteraction({ kind: 'questions', id: 'q1', sessionId, agent: 'AppAgent', questions: ['Which folder?'] });
      const rows = page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem');
      await expect.poll(() => rows.count()).toBe(3);
      await page.getByRole('heading', { name: 'Waiting for you' }).waitFor();
      await saveScreenshot(page, `review-contrast-${colorScheme}`);

      const measured: Record<string, number> = {
        SCREENSHOT: await contrastOf(rows.nth(0).getByText('SCREENSHOT', { exact: true })),
        CONFIRM: await contrastOf(rows.nth(1).getByText('CONFIRM', { exact: true })),
        'approved by you': await contrastOf(rows.nth(1).getByText('approved by you')),
        PENDING: await contrastOf(rows.nth(2).getByText('PENDING', { exact: true })),
        'Waiting for you': await contrastOf(page.getByRole('heading', { name: 'Waiting for you' })),
      };
      // A ratio that is no number would pass the check below unseen.
      for (const ratio of Object.values(measured)) expect(ratio).toBeGreaterThanOrEqual(1);
      const low = Object.entries(measured).filter(([, ratio]) => ratio < 4.5);
      expect(low, JSON.stringify(measured)).toEqual([]);
    });
  }
});

describe('keyboard focus when a card goes away on its own (review)', () => {
  it('moves the focus on when the card being typed in goes because the session ended elsewhere', async () => {
    const { host } = fresh;
    const ui = await fresh.open();
    const { page } = ui;
    await page.getByRole('textbox', { name: 'Request' }).fill('empty the trash');
    await page.getByRole('textbox', { name: 'Request' }).press('Enter');
    await host.waitForCommand('session.start');
    const sessionId = [...host.sessions.keys()].at(-1) ?? '';
    host.addStep(makeStep(sessionId, 0));
    const held = (id: string) =>
      host.requestInteraction({ kind: 'confirm', id, sessionId, agent: 'AppAgent', actionText: 'Empty the trash', actions: [], target: null, reasons: ['confirmation mode: always'], screenshot: null });
    held('c1');
    held('c2');
    const cards = page.getByRole('region', { name: 'Approve this action?' });
    await expect.poll(() => cards.count()).toBe(2);
    const focused = () => page.evaluate(`document.activeElement === document.body ? 'body' : (document.activeElement?.id || document.activeElement?.tagName)`);

    // Decided in another window: its card goes, the focus goes to the card still waiting.
    await cards.first().getByRole('textbox', { name: 'Note for the agent (optional)' }).fill('Only the old files');
    host.push({ kind: 'interaction.resolved', sessionId, interactionId: 'c1', outcome: 'approved' });
    await expect.poll(() => cards.count()).toBe(1);
    await expect.poll(() => cards.evaluate((card) => card.contains(card.ownerDocument.activeElement))).toBe(true);

    // The session is stopped (the tray, another window): the last card goes, the focus goes to the request box.
    await cards.getByRole('textbox', { name: 'Note for the agent (optional)' }).focus();
    host.end(sessionId, 'stopped', 'Stopped by you');
    await expect.poll(() => cards.count()).toBe(0);
    await expect.poll(focused).toBe('deskhand-request');
    expect(ui.problems).toEqual([]);
  });
});

describe('refused submits by keyboard (review)', () => {
  it('takes the focus to the first unanswered question when Submit answers is refused', async () => {
    const { host } = fresh;
    const ui = await fresh.open();
    const { page } = ui;
    await page.getByRole('textbox', { name: 'Request' }).fill('rename the photos');
    await page.getByRole('textbox', { name: 'Request' }).press('Enter');
    await host.waitForCommand('session.start');
    const sessionId = [...host.sessions.keys()].at(-1) ?? '';
    host.requestInteraction({ kind: 'questions', id: 'q1', sessionId, agent: 'HostAgent', questions: ['Which folder?', 'Which names?'] });
    await page.getByRole('textbox', { name: 'Which names?' }).fill('By date');
    await page.getByRole('button', { name: 'Submit answers' }).focus();
    // A frame can come before React commits the marked questions: the focus must get there all the same.
    const framesAsUsual = await framesAtOnce(page);
    await page.keyboard.press('Enter');
    await page.getByText('Answer every question before submitting.').waitFor();
    await expect.poll(() => page.getByRole('textbox', { name: 'Which folder?' }).evaluate((input) => input === input.ownerDocument.activeElement)).toBe(true);
    await framesAsUsual();
    expect(host.commands('interaction.answer')).toHaveLength(0);
  });

  it('says when a pasted request was longer than a request may be, instead of cutting it silently', async () => {
    const ui = await fresh.open();
    const { page } = ui;
    const box = page.getByRole('textbox', { name: 'Request' });
    await box.focus();
    // A paste event as the browser sends it (a synthetic one inserts nothing: the handler is what is checked).
    await page.evaluate(`(() => {
      const data = new DataTransfer();
      data.setData('text/plain', 'x'.repeat(25000));
      const event = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
      document.getElementById('deskhand-request').dispatchEvent(event);
    })()`);
    await page.getByText(/20,000 characters/).waitFor();
  });
});

describe('approval keys with more than one held step (review)', () => {
  it('Ctrl+Enter in the note of the second card approves that card, not the first one', async () => {
    const { host } = fresh;
    const ui = await fresh.open();
    const { page } = ui;
    await page.getByRole('textbox', { name: 'Request' }).fill('tidy the desktop');
    await page.getByRole('textbox', { name: 'Request' }).press('Enter');
    await host.waitForCommand('session.start');
    const sessionId = [...host.sessions.keys()].at(-1) ?? '';
    const held = (id: string, actionText: string) =>
      host.requestInteraction({ kind: 'confirm', id, sessionId, agent: 'AppAgent', actionText, actions: [], target: null, reasons: ['confirmation mode: always'], screenshot: null });
    held('first', 'Delete the old folder');
    held('second', 'Empty the trash');
    const cards = page.getByRole('region', { name: 'Approve this action?' });
    await expect.poll(() => cards.count()).toBe(2);
    await cards.nth(1).getByRole('textbox', { name: 'Note for the agent (optional)' }).fill('Only this one');
    await page.keyboard.press('Control+Enter');
    const decided = await host.waitForCommand('interaction.decide');
    expect(decided).toMatchObject({ interactionId: 'second', approved: true, note: 'Only this one' });
    await page.waitForTimeout(300);
    expect(host.commands('interaction.decide')).toHaveLength(1);
    await expect.poll(() => cards.count()).toBe(1);
    await cards.getByText('Delete the old folder').waitFor();
  });
});


describe('keyboard focus on the run controls (review)', () => {
  it('keeps the focus on the controls when Pause becomes Resume and back, and takes it to the request box once Stop ended the run', async () => {
    const { host } = fresh;
    const ui = await fresh.open();
    const { page } = ui;
    await page.getByRole('textbox', { name: 'Request' }).fill('sort the downloads');
    await page.getByRole('textbox', { name: 'Request' }).press('Enter');
    await host.waitForCommand('session.start');
    const focused = () =>
      page.evaluate(`document.activeElement === document.body ? 'body' : (document.activeElement?.id || document.activeElement?.textContent)`);

    // Pause is disabled ("Starting…") until the host has answered: a disabled button takes no focus, and
    // the Enter would go to the request box. The user sees it enabled before pressing it; so does this.
    const pause = page.getByRole('button', { name: 'Pause' });
    await expect.poll(() => pause.isEnabled()).toBe(true);
    await pause.focus();
    await expect.poll(focused).toBe('Pause');
    await page.keyboard.press('Enter');
    await host.waitForCommand('session.pause');
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await expect.poll(focused).toBe('Resume');

    await page.keyboard.press('Enter');
    await host.waitForCommand('session.resume');
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    await expect.poll(focused).toBe('Pause');

    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Stop');
    await page.keyboard.press('Enter');
    await host.waitForCommand('session.stop');
    await expect.poll(() => page.getByRole('button', { name: 'Stop' }).isDisabled()).toBe(true);
    await expect.poll(focused).toBe('deskhand-request');
    expect(ui.problems).toEqual([]);
  });

  it('rings the control the keyboard is on (buttons, icon buttons, the session links), not only tints it faintly', async () => {
    const { host } = fresh;
    host.addSession(makeSession('photos', { title: 'Sort the photos', status: 'finished' }));
    const ui = await fresh.open();
    const { page } = ui;
    await host.waitForCommand('session.list');
    await page.getByRole('link', { name: /Sort the photos/ }).waitFor();
    const rings: string[] = [];
    for (let press = 0; press < 7; press++) {
      await page.keyboard.press('Tab');
      rings.push(
        (await page.evaluate(`(() => {
          const element = document.activeElement;
          const style = getComputedStyle(element);
          return (element.getAttribute('aria-label') || element.textContent.trim().slice(0, 15)) + ': ' + style.outlineStyle + ' ' + style.outlineWidth;
        })()`)) as string,
      );
    }
    // Text fields show the focus with their own thick border; every other stop has a 3 px ring.
    expect(rings.filter((ring) => !ring.startsWith(': '))).toEqual([
      'New: solid 3px',
      'Sort the photos: solid 3px',
      'Actions for Sort the photos: solid 3px',
      'Settings: solid 3px',
      'Keyboard shortcuts: solid 3px',
    ]);
    await page.getByRole('link', { name: /Sort the photos/ }).focus();
    await saveScreenshot(page, 'review-focus-ring-session');
    expect(ui.problems).toEqual([]);
  });
});

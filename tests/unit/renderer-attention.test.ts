// What the UI does to get (and keep) the user's attention: the title, approval notifications and the
// approval shortcuts, as plain logic without a DOM.
import { describe, expect, it } from 'vitest';
import { ApprovalNotifications, attentionTitle, servedTitleSuffix } from '../../src-renderer/src/components/attention';
import { closedOverlayJustBefore, confirmKeyAction, ESC_AFTER_OVERLAY_MS, noteOtherInput, noteOverlayEscape, type ConfirmKeyEvent } from '../../src-renderer/src/components/confirmKeys';

const key = (overrides: Partial<ConfirmKeyEvent>): ConfirmKeyEvent => ({
  key: 'Escape',
  ctrlKey: false,
  metaKey: false,
  isComposing: false,
  repeat: false,
  defaultPrevented: false,
  ...overrides,
});

const calm = { inOverlay: false, overlayOpen: false, inOtherTextField: false, inOwnTextField: false, inOtherCard: false };

describe('approval shortcuts (Ctrl/⌘+Enter approves, Esc rejects)', () => {
  it('approves and rejects when nothing else takes the key', () => {
    expect(confirmKeyAction(key({ key: 'Enter', ctrlKey: true }), calm)).toBe('approve');
    expect(confirmKeyAction(key({ key: 'Enter', metaKey: true }), calm)).toBe('approve');
    expect(confirmKeyAction(key({ key: 'Escape' }), calm)).toBe('reject');
    expect(confirmKeyAction(key({ key: 'Enter' }), calm)).toBeNull();
  });

  it('Esc that closes a snackbar or dialog, or that something handled already, rejects nothing', () => {
    expect(confirmKeyAction(key({}), { ...calm, overlayOpen: true })).toBeNull();
    expect(confirmKeyAction(key({ defaultPrevented: true }), calm)).toBeNull();
    expect(confirmKeyAction(key({}), { ...calm, inOverlay: true })).toBeNull();
    // A snackbar on screen does not stop Ctrl+Enter.
    expect(confirmKeyAction(key({ key: 'Enter', ctrlKey: true }), { ...calm, overlayOpen: true })).toBe('approve');
  });

  it('an Esc just after one that closed a message or dialog rejects nothing; Ctrl+Enter still approves', () => {
    expect(confirmKeyAction(key({}), { ...calm, justClosedOverlay: true })).toBeNull();
    expect(confirmKeyAction(key({ key: 'Enter', ctrlKey: true }), { ...calm, justClosedOverlay: true })).toBe('approve');
    noteOverlayEscape(10_000);
    expect(closedOverlayJustBefore(10_000 + 300)).toBe(true);
    expect(closedOverlayJustBefore(10_000 + ESC_AFTER_OVERLAY_MS - 1)).toBe(true);
    expect(closedOverlayJustBefore(10_000 + ESC_AFTER_OVERLAY_MS)).toBe(false);
    // An Esc from before it (another clock's stamp) is not "just after".
    expect(closedOverlayJustBefore(9_000)).toBe(false);
    // Another key or a click in between: the next Esc is meant.
    noteOverlayEscape(20_000);
    noteOtherInput();
    expect(closedOverlayJustBefore(20_000 + 300)).toBe(false);
  });

  it('ignores keys held down and keys that confirm an IME composition', () => {
    expect(confirmKeyAction(key({ repeat: true }), calm)).toBeNull();
    expect(confirmKeyAction(key({ isComposing: true }), calm)).toBeNull();
    expect(confirmKeyAction(key({ key: 'Enter', ctrlKey: true, repeat: true }), calm)).toBeNull();
    expect(confirmKeyAction(key({ key: 'Enter', ctrlKey: true, isComposing: true }), calm)).toBeNull();
  });

  it('from the request box (another text field) Ctrl+Enter approves, Esc only leaves the field', () => {
    const inRequestBox = { ...calm, inOtherTextField: true };
    expect(confirmKeyAction(key({ key: 'Enter', ctrlKey: true }), inRequestBox)).toBe('approve');
    expect(confirmKeyAction(key({ key: 'Escape' }), inRequestBox)).toBeNull();
  });

  it("in another card (a question's answers, an agent's form) neither key decides: it is that card's", () => {
    const inForm = { ...calm, inOtherCard: true, inOtherTextField: true };
    expect(confirmKeyAction(key({ key: 'Enter', ctrlKey: true }), inForm)).toBeNull();
    expect(confirmKeyAction(key({ key: 'Enter', metaKey: true }), inForm)).toBeNull();
    expect(confirmKeyAction(key({ key: 'Escape' }), { ...calm, inOtherCard: true })).toBeNull();
  });

  it("in the card's own note Esc leaves the note first (it never decides), Ctrl+Enter still approves", () => {
    const inNote = { ...calm, inOwnTextField: true };
    expect(confirmKeyAction(key({ key: 'Escape' }), inNote)).toBe('leave');
    expect(confirmKeyAction(key({ key: 'Enter', ctrlKey: true }), inNote)).toBe('approve');
    expect(confirmKeyAction(key({ key: 'Escape' }), { ...inNote, overlayOpen: true })).toBeNull();
  });
});

describe('approval notifications', () => {
  const fake = () => {
    const notification = { closed: 0, close: () => void (notification.closed += 1) };
    return notification;
  };

  it('closes the notification of an approval once it is no longer pending, and only that one', () => {
    const notifications = new ApprovalNotifications<ReturnType<typeof fake>>();
    notifications.sync(new Set(['c1', 'c2']));
    const first = fake();
    const second = fake();
    notifications.add('c1', first);
    notifications.add('c2', second);
    expect(notifications.isPending('c1')).toBe(true);

    notifications.sync(new Set(['c2']));
    expect(first.closed).toBe(1);
    expect(second.closed).toBe(0);
    expect(notifications.isPending('c1')).toBe(false);

    // Closing twice (clicked, then resolved) closes once.
    notifications.close('c2');
    notifications.sync(new Set());
    expect(second.closed).toBe(1);
  });

  it('counts what waits in the title', () => {
    expect(attentionTitle(0)).toBe('Deskhand');
    expect(attentionTitle(2)).toBe('(2) Deskhand: waiting for you');
  });

  it("keeps browser mode's mark in every title", () => {
    const suffix = servedTitleSuffix('Deskhand · 5e1f0a9c');
    expect(suffix).toBe(' · 5e1f0a9c');
    expect(attentionTitle(0, suffix)).toBe('Deskhand · 5e1f0a9c');
    expect(attentionTitle(3, suffix)).toBe('(3) Deskhand · 5e1f0a9c: waiting for you');
    // The desktop app's page has none.
    expect(servedTitleSuffix('Deskhand')).toBe('');
    expect(servedTitleSuffix('Something else')).toBe('');
  });
});

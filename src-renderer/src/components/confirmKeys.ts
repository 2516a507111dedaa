/** What of a keydown the approval shortcuts look at (a KeyboardEvent has all of it). */
export interface ConfirmKeyEvent {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  isComposing: boolean;
  repeat: boolean;
  defaultPrevented: boolean;
}

export interface ConfirmKeyContext {
  /** The key was pressed in a dialog, drawer or menu: it belongs to that. */
  inOverlay: boolean;
  /** A snackbar or dialog is open: Esc closes that first. */
  overlayOpen: boolean;
  /** The key was pressed in a text field outside the card (the request box, the search). */
  inOtherTextField: boolean;
  /** The key was pressed in the card's own text field (its note). */
  inOwnTextField: boolean;
  /** The key was pressed in another card of the panel (a question's answers, an agent's form): it is that card's. */
  inOtherCard: boolean;
  /**
   * An Esc closed a snackbar or dialog a moment ago (ESC_AFTER_OVERLAY_MS), with no other key or click
   * since: this one is pressed again to make sure it closed, or out of habit, not at the card.
   */
  justClosedOverlay?: boolean;
}

/** How long after an Esc that closed a message or dialog another Esc still rejects nothing. */
export const ESC_AFTER_OVERLAY_MS = 1500;

/** When (an event's timeStamp) an Esc last went to an open snackbar or dialog; null: none yet. */
let overlayEscapeAt: number | null = null;

/** Notes an Esc pressed while a snackbar or dialog was open (it closes that, not the card). */
export function noteOverlayEscape(timeStamp: number): void {
  overlayEscapeAt = timeStamp;
}

/** Any other key or a click since: the next Esc is not the second of a double press. */
export function noteOtherInput(): void {
  overlayEscapeAt = null;
}

/** Whether an Esc at `timeStamp` comes within ESC_AFTER_OVERLAY_MS of one that closed a snackbar or dialog. */
export function closedOverlayJustBefore(timeStamp: number): boolean {
  return overlayEscapeAt !== null && timeStamp >= overlayEscapeAt && timeStamp - overlayEscapeAt < ESC_AFTER_OVERLAY_MS;
}

/** `leave`: the focus leaves the card's note for the card itself, the note kept; Esc there rejects. */
export type ConfirmKeyAction = 'approve' | 'reject' | 'leave';

/**
 * Ctrl/⌘+Enter approves, from anywhere but an overlay or another card (the request box too, as its hint
 * says; not an answer or a form being filled in, where it may be meant as "send this"). Esc
 * rejects only when nothing else takes it: not a key someone handled already, not with a snackbar or
 * dialog open (Esc closes that), nor just after an Esc closed one (pressed twice to be sure, the
 * second one is not meant for a card the user may not have looked at), not in a text field, where it means "leave this field" (in the card's
 * own note, a second Esc then rejects, so Esc pressed to stop typing never decides). A key held down
 * (repeat) or confirming an IME composition never decides.
 */
export function confirmKeyAction(event: ConfirmKeyEvent, context: ConfirmKeyContext): ConfirmKeyAction | null {
  if (event.isComposing || event.repeat || event.defaultPrevented || context.inOverlay || context.inOtherCard) return null;
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) return 'approve';
  if (event.key !== 'Escape' || context.overlayOpen || context.justClosedOverlay || context.inOtherTextField) return null;
  return context.inOwnTextField ? 'leave' : 'reject';
}

import { FOCUS_TARGETS } from '../store';

/** Marks a question or approval card (focusable from script, not by Tab), so the focus can be moved to it. */
export const waitingCardProps = { 'data-waiting-card': '', tabIndex: -1 } as const;

/**
 * Moves the focus on deliberately once a card is done with (or a waiting session is opened): to the
 * next question or approval that waits, else to the request box. Left alone, it falls to <body>.
 */
export function focusNextWaiting(): void {
  const card = document.querySelector<HTMLElement>('[data-waiting-card]');
  (card ?? document.getElementById(FOCUS_TARGETS.request))?.focus();
}

/** The interaction the user last answered or decided, whose card will go once the host resolves it. */
let answeredId: string | null = null;

export function noteAnswered(interactionId: string): void {
  answeredId = interactionId;
}

/**
 * Called with the interactions on screen after each change: once the answered one has gone, and the
 * focus went with its card (to <body>), moves it on. A focus the user put elsewhere is left alone.
 */
export function moveFocusIfAnsweredGone(interactionIds: readonly string[]): void {
  if (answeredId === null || interactionIds.includes(answeredId)) return;
  answeredId = null;
  const active = document.activeElement;
  if (active === null || active === document.body) focusNextWaiting();
}

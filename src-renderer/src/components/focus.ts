import { FOCUS_TARGETS } from '../store';

/** Marks a question or approval card (focusable from script, not by Tab), so the focus can be moved to it. */
export const waitingCardProps = { 'data-waiting-card': '', tabIndex: -1 } as const;

/** Marks an agent's form that is open (focusable from script, not by Tab). */
export const OPEN_FORM_ATTRIBUTE = 'data-open-form';

/**
 * Moves the focus on deliberately once a card is done with (or a waiting session is opened): to the
 * next question or approval that waits, else to an agent's open form (a step can ask questions and show
 * a form: the agent waits for both), else to the request box. Left alone, it falls to <body>.
 */
export function focusNextWaiting(): void {
  if (!focusWaitingCard()) document.getElementById(FOCUS_TARGETS.request)?.focus();
}

/** Focuses the first question or approval that waits, else an agent's open form; false when there is none. */
export function focusWaitingCard(): boolean {
  const card = document.querySelector<HTMLElement>('[data-waiting-card]') ?? document.querySelector<HTMLElement>(`[${OPEN_FORM_ATTRIBUTE}]`);
  card?.focus();
  return card !== null;
}

/**
 * Starts noting whether the user presses a key or the pointer from now on (moved on to something else
 * while a session loads, say); the function returned stops that and says whether they did.
 */
export function watchUserInput(): () => boolean {
  let pressed = false;
  const note = (): void => {
    pressed = true;
  };
  window.addEventListener('keydown', note, true);
  window.addEventListener('pointerdown', note, true);
  return () => {
    window.removeEventListener('keydown', note, true);
    window.removeEventListener('pointerdown', note, true);
    return pressed;
  };
}

/**
 * Focuses the first element in `root` that matches `selector` once there is one: at once, or when a later
 * render puts it in the page. A frame is no sure wait for that (a busy machine can draw one before React
 * commits), and what is waited for may come a render after the one asked for (JSONForms marks the fields
 * it shows problems for in a render of its own). Gives up after `withinMs` (then calls `onGiveUp`);
 * returns a function that gives up at once (for an unmount), without calling it.
 */
export function focusOnceShown(root: HTMLElement, selector: string, withinMs = 2_000, onGiveUp?: () => void): () => void {
  const tryFocus = (): boolean => {
    const target = root.querySelector<HTMLElement>(selector);
    target?.focus();
    return target !== null;
  };
  if (tryFocus()) return () => undefined;
  const observer = new MutationObserver(() => {
    if (tryFocus()) stop();
  });
  const timer = setTimeout(() => {
    stop();
    onGiveUp?.();
  }, withinMs);
  const stop = (): void => {
    observer.disconnect();
    clearTimeout(timer);
  };
  observer.observe(root, { subtree: true, childList: true, attributes: true });
  return stop;
}

/** The interaction the user last answered or decided, whose card will go once the host resolves it. */
let answeredId: string | null = null;

export function noteAnswered(interactionId: string): void {
  answeredId = interactionId;
}

/** A card that had the focus went away without being answered here (decided elsewhere, the session ended). */
let focusedCardGone = false;

/**
 * For a card's layout-effect cleanup, which runs while its elements are still in the page: notes
 * whether the focus is about to go with them.
 */
export function noteCardLeaving(card: HTMLElement | null): void {
  if (card?.contains(document.activeElement)) focusedCardGone = true;
}

/**
 * Called with the interactions on screen after each change: once the answered one has gone, or a card
 * that had the focus went away on its own, and the focus went with it (to <body>), moves it on. A focus
 * the user put elsewhere is left alone.
 */
export function moveFocusIfAnsweredGone(interactionIds: readonly string[]): void {
  const answeredGone = answeredId !== null && !interactionIds.includes(answeredId);
  if (!answeredGone && !focusedCardGone) return;
  if (answeredGone) answeredId = null;
  focusedCardGone = false;
  const active = document.activeElement;
  if (active === null || active === document.body) focusNextWaiting();
}

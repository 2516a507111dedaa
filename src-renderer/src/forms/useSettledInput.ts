import { useCallback, useRef } from 'react';

/** JSONForms' material text and number inputs pass typing on after this pause (or on blur). */
const INPUT_DEBOUNCE_MS = 300;
/** How long past the debounce a busy machine may take to bring the last keystroke to onChange. */
const MAX_LATE_CHANGE_MS = 1_500;

function nextFrame(): Promise<void> {
  return new Promise((done) => requestAnimationFrame(() => done()));
}

/**
 * JSONForms' text inputs debounce what is typed, so a Submit right after typing would read the data
 * before the last keys arrive. Put `onInputCapture` on the form and call `changed()` from its
 * onChange; `settle()` resolves once the last keystroke has reached the form's data: the debounce has
 * run out and an onChange has come since that keystroke. Frames alone are not enough: on a loaded
 * machine the change goes through JSONForms' reducer and effect after them.
 */
export function useSettledInput(): { onInputCapture(): void; changed(): void; settle(): Promise<void> } {
  const lastInput = useRef(Number.NEGATIVE_INFINITY);
  const lastChange = useRef(Number.NEGATIVE_INFINITY);
  const onInputCapture = useCallback(() => {
    lastInput.current = performance.now();
  }, []);
  const changed = useCallback(() => {
    lastChange.current = performance.now();
  }, []);
  const settle = useCallback(async () => {
    const wait = lastInput.current + INPUT_DEBOUNCE_MS + 30 - performance.now();
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    const giveUpAt = performance.now() + MAX_LATE_CHANGE_MS;
    while (lastChange.current < lastInput.current && performance.now() < giveUpAt) {
      await new Promise((done) => setTimeout(done, 10));
    }
    await nextFrame();
  }, []);
  return { onInputCapture, changed, settle };
}

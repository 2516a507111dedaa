import { useCallback, useRef } from 'react';

/** JSONForms' material text and number inputs pass typing on after this pause (or on blur). */
const INPUT_DEBOUNCE_MS = 300;

function nextFrame(): Promise<void> {
  return new Promise((done) => requestAnimationFrame(() => done()));
}

/**
 * JSONForms' text inputs debounce what is typed, so a Submit right after typing would read the data
 * before the last keys arrive. Put `onInputCapture` on the form; `settle()` resolves once the last
 * keystroke has reached the form's data.
 */
export function useSettledInput(): { onInputCapture(): void; settle(): Promise<void> } {
  const lastInput = useRef(0);
  const onInputCapture = useCallback(() => {
    lastInput.current = performance.now();
  }, []);
  const settle = useCallback(async () => {
    const wait = lastInput.current + INPUT_DEBOUNCE_MS + 30 - performance.now();
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    // The debounced change goes through JSONForms' reducer and an effect before onChange: a few frames.
    await nextFrame();
    await nextFrame();
  }, []);
  return { onInputCapture, settle };
}

import { Box } from '@mui/material';
import { useEffect, useRef, type FocusEvent, type RefObject } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { canPause, canResume, canStop, FOCUS_TARGETS, stopTarget, useDeskhand } from '../store';
import { PauseButton } from './PauseButton';
import { ResumeButton } from './ResumeButton';
import { StopButton } from './StopButton';

/**
 * Pause gives way to Resume (and back) and Stop is disabled once the run ends: the button the keyboard
 * was on goes, and the browser drops the focus to the page. It moves to the control that took its place,
 * else to the request box (what is left to do once the run ended).
 */
function useFocusKeptOnControls(): { ref: RefObject<HTMLDivElement | null>; onFocus(event: FocusEvent): void; onBlur(event: FocusEvent): void } {
  const ref = useRef<HTMLDivElement>(null);
  const focused = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const button = focused.current;
    if (!button || (button.isConnected && !button.matches(':disabled'))) return;
    focused.current = null;
    // A disabled button can still hold the focus until the browser's next frame.
    const active = document.activeElement;
    if (active !== null && active !== document.body && active !== button) return;
    const next = ref.current?.querySelector<HTMLElement>('button:not(:disabled)') ?? document.getElementById(FOCUS_TARGETS.request);
    next?.focus();
  });
  return {
    ref,
    onFocus: (event) => {
      focused.current = event.target instanceof HTMLElement ? event.target : null;
    },
    // Moved on to another element by the user; a button that went leaves no related target.
    onBlur: (event) => {
      if (event.relatedTarget !== null) focused.current = null;
    },
  };
}

/** Stop, and Pause or Resume (whichever applies), for the running session, else the one on screen. */
export function SessionControls() {
  // Pause and Stop being enabled are read too: a button disabled must re-render this, for the focus to move on.
  const [resumable] = useDeskhand(
    useShallow((state) => {
      const target = stopTarget(state);
      return [canResume(target), canPause(target), canStop(target)];
    }),
  );
  const focus = useFocusKeptOnControls();
  return (
    <Box ref={focus.ref} onFocus={focus.onFocus} onBlur={focus.onBlur} sx={{ display: 'flex', gap: 1, flexShrink: 0 }}>
      {resumable ? <ResumeButton /> : <PauseButton />}
      <StopButton />
    </Box>
  );
}

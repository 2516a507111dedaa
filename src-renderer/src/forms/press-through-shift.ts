import type { MouseEvent as ReactMouseEvent } from 'react';

/** How far the pointer may move between down and up for it still to be a press. */
const PRESS_SLOP_PX = 8;

/**
 * A button's onMouseDown for buttons under fields whose warnings come and go as a value is passed on.
 * The press keeps the focus in the field typed in last (a blur would pass its value on at once and move
 * the button), and a press the layout moved the button away from meanwhile (the field's held-back value
 * arrived, warnings showed or went) is still a press of it: the browser sends that click to neither. The
 * button is clicked then, as if the release had landed on it; a release that lands on it is an ordinary click.
 */
export function pressThroughShift(event: ReactMouseEvent<HTMLButtonElement>): void {
  if (event.button !== 0) return;
  event.preventDefault();
  const button = event.currentTarget;
  const { clientX, clientY } = event;
  const onUp = (up: MouseEvent): void => {
    if (up.button !== 0) return;
    window.removeEventListener('mouseup', onUp, true);
    if (up.target instanceof Node && button.contains(up.target)) return;
    if (Math.hypot(up.clientX - clientX, up.clientY - clientY) > PRESS_SLOP_PX) return;
    if (button.isConnected && !button.disabled) button.click();
  };
  window.addEventListener('mouseup', onUp, true);
}

import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * Runs a step (a focus move, mostly) once React has committed what was asked until now, its effects
 * included. A `requestAnimationFrame` is not enough after an await: a busy machine can draw a frame before
 * React commits, and the focus then goes to a dialog still open (whose focus trap takes it back and which
 * then unmounts, leaving the focus nowhere) or to a row about to go.
 */
export function useAfterCommit(): (step: () => void) => void {
  const queued = useRef<Array<() => void>>([]);
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    for (const step of queued.current.splice(0)) step();
  }, [asked]);
  return useCallback((step: () => void) => {
    queued.current.push(step);
    setAsked((count) => count + 1);
  }, []);
}
